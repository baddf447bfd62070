import CompositorHarness
import Foundation
import Messaging
import Outputs

/// Driving and watching the video of an instance for `bench media`: show, stop, and whether the screens play.
extension DisplayBenchmarks {
    /// `media.show` of `path`, looping and contained, on each of `screens`; each reply comes once its first frame is
    /// ready.
    func showMedia(_ instance: Instance, path: String, on screens: [String]) throws {
        for screen in screens {
            let reply = try instance.client.exchange(
                line: MessageCodec.encodeRequest(
                    .showMedia(screen: screen, path: path, fit: .contain, rotation: .none, loop: true)))
            guard !reply.contains(#""error""#) else { throw HarnessError("media.show on \(screen): \(reply)") }
        }
    }

    /// `media.stop` on each of `screens`, then waits until the log says one more pipeline stopped.
    func stopMedia(_ instance: Instance, on screens: [String]) throws {
        let stopped = instance.app.output.components(separatedBy: "video pipeline stopped").count
        for screen in screens {
            let reply = try instance.client.exchange(line: MessageCodec.encodeRequest(.stopMedia(screen: screen)))
            guard !reply.contains(#""error""#) else { throw HarnessError("media.stop on \(screen): \(reply)") }
        }
        try waitUntil(timeout: 30, "the video pipeline to stop") {
            instance.app.output.components(separatedBy: "video pipeline stopped").count > stopped
        }
    }

    /// How many of `outputs` of `compositor` do not show a moving picture: two screenshots 0.3 s apart, the first
    /// not black and the second different from it. `framesShown` in `status` counts the frames Multiscreen handed
    /// to the compositor, not what reached the screen: a figure from a screen that shows nothing is not a figure of
    /// video. Taken after a measured window, never in it (a screenshot costs the compositor a copy of the output).
    static func screensNotSeenPlaying(_ compositor: some ScreencopyCompositor, _ outputs: [String]) throws -> Int {
        var unseen = 0
        for output in outputs {
            let first = try compositor.screenshot(output)
            Thread.sleep(forTimeInterval: 0.3)  // ~9 frames of a 30 fps video
            let second = try compositor.screenshot(output)
            if !(first.fraction(of: RGBColor(hex: 0)) < 0.9 && second.fraction(differingFrom: first) > 0.01) {
                unseen += 1
                mediaLogger.warning("media: \(output) does not show a moving picture")
            }
        }
        return unseen
    }

    /// `status` → the `media` object of `screen`.
    static func mediaVitals(_ instance: Instance, _ screen: String) throws -> [String: Any] {
        let screens = try statusObject(instance.client)["screens"] as? [[String: Any]] ?? []
        return screens.first { $0["name"] as? String == screen }?["media"] as? [String: Any] ?? [:]
    }
}
