import CompositorHarness
import Foundation
import Testing

/// Text read back off a screen by tesseract: what a page or a scene shows, checked as a person would read it.
enum ScreenText {
    /// What tesseract reads on `output` now.
    static func read(_ sway: HeadlessSway, _ output: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try sway.screenshotPNG(output, to: path)
        let tesseract = try ChildProcess("tesseract", [path, "stdout", "-l", "eng", "--psm", "3"])
        #expect(try tesseract.waitForExit(timeout: 60) == 0, "\(tesseract.output)")
        return tesseract.standardOutput
    }

    /// Waits until tesseract reads `text` on `output`. - Returns: what it read.
    @discardableResult
    static func waitFor(_ text: String, on output: String, in sway: HeadlessSway, timeout: Double = 30) throws
        -> String
    {
        var read = ""
        try waitUntil(timeout: timeout, "\"\(text)\" on \(output) (last read: \(read))") {
            read = try Self.read(sway, output)
            return read.contains(text)
        }
        return read
    }
}
