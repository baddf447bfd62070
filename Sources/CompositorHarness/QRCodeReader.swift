import Foundation

extension Screenshot {
    /// The text of the QR code `zbarimg` (Debian's zbar-tools) finds in this picture, or nil when it finds none:
    /// how tests and benchmarks read the phone remote's link, as a phone's camera does (the link is a secret and
    /// is in no log).
    public func qrCodeText() throws -> String? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png").path
        try writePNG(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let zbar = try ChildProcess("zbarimg", ["-q", "--raw", path])
        let status = try zbar.waitForExit(timeout: 30)
        // 4: no symbol found.
        guard status == 0 else {
            guard status == 4 else { throw HarnessError("zbarimg failed with status \(status): \(zbar.output)") }
            return nil
        }
        return zbar.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The QR code's text in the quarter of the picture at `corner` (`top-left`, `top-right`, `bottom-left`,
    /// `bottom-right`), or nil: one quarter decodes faster and more surely than the whole screen.
    public func qrCodeText(corner: String) throws -> String? {
        let (halfWidth, halfHeight) = (width / 2, height / 2)
        let x = corner.hasSuffix("right") ? width - halfWidth : 0
        let y = corner.hasPrefix("bottom") ? height - halfHeight : 0
        return try region(x: x, y: y, width: halfWidth, height: halfHeight).qrCodeText()
    }
}

extension ScreencopyCompositor {
    /// Waits until `output` shows a QR code at `corner` other than `previous`, and returns its text (the phone
    /// remote's link with its access code).
    public func waitForNewQRCode(
        on output: String, corner: String = "bottom-right", other previous: String? = nil, timeout: Double = 20
    ) throws -> String {
        var found: String?
        _ = try waitForScreenshot(output, timeout: timeout, "a QR code other than \(previous ?? "none")") { shot in
            found = try? shot.qrCodeText(corner: corner)
            return found != nil && found != previous
        }
        return found!
    }
}
