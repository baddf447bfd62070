import ArgumentParser
import Foundation
import Messaging

extension FleetCommand {
    /// `multiscreen fleet capture (--kiosk K | --group G | --all) --screen NAME -o FILE.png`: a picture of a screen of
    /// each target kiosk, from the kiosk's own drawing, carried back in its reply.
    struct Capture: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "capture",
            abstract: "Write a PNG of a screen of each target kiosk, as the kiosk last drew it.",
            discussion: """
                The kiosk draws the screen again as it shows it (pictures and videos included) and sends the PNG in \
                its reply; its [fleet] allow must grant screen.capture. With one kiosk the PNG goes to FILE; with \
                --group or --all, each kiosk's goes beside it, named FILE's name, a dash and the kiosk's name \
                (proof-t2-gate-a.png). A PNG over 24 MiB is refused by the kiosk.
                """)

        @OptionGroup var broker: BrokerOptions
        @OptionGroup var target: TargetOptions
        @Option(help: ArgumentHelp("The screen of each kiosk.", valueName: "name"))
        var screen: String
        @Option(name: .shortAndLong, help: ArgumentHelp("Where the PNG goes.", valueName: "file.png"))
        var output: String

        func run() throws {
            let single = target.kiosk != nil
            // A picture of several megabytes takes a while to encode and to cross the broker: 15 s unless --timeout.
            try FleetCommand.request(
                .captureScreen(screen: screen, path: nil), broker: broker, target: target, timeout: 15
            ) {
                kiosk, reply, payload in
                guard case .object(let result)? = reply["result"], case .string(let encoded)? = result["png"],
                    let png = Data(base64Encoded: encoded)
                else {
                    print("\(kiosk) \(String(decoding: payload, as: UTF8.self))")
                    return
                }
                let path = single ? output : Self.path(output, kiosk: kiosk)
                try png.write(to: URL(fileURLWithPath: path), options: .atomic)
                var size = ""
                if case .integer(let width)? = result["width"], case .integer(let height)? = result["height"] {
                    size = "\(width)×\(height) "
                }
                print("\(kiosk) \(screen): \(size)PNG of \(png.count) bytes written to \(path)")
            }
        }

        /// `proof.png` for kiosk `t2-gate-a` → `proof-t2-gate-a.png`.
        static func path(_ output: String, kiosk: String) -> String {
            let url = URL(fileURLWithPath: output)
            let ext = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
            return url.deletingPathExtension().path + "-" + kiosk + ext
        }
    }
}
