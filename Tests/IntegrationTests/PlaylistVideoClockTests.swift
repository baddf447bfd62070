import CompositorHarness
import Foundation
import Testing

/// A playlist's video starts where the wall clock says, not at its first frame: a kiosk that starts (or a screen
/// whose pipeline starts) 8 s into a video's turn shows the frame 8 s in. The video burns its own time in (ffmpeg's
/// `drawtext`), and tesseract reads it off the screen.
@Suite(.serialized) struct PlaylistVideoClockTests {
    /// 20 s at 25 frames a second, black on white: "AT 8.040000" on the frame 8.04 s in. x264 puts a keyframe every
    /// 10 s (250 frames), so the frame 8 s in is decoded from the one at 0.
    static func makeClockVideo(in directory: String) throws -> String {
        let path = directory + "/clock.mp4"
        try MediaFixtures.ffmpeg([
            "-f", "lavfi", "-i", "color=c=white:s=640x360:r=25", "-t", "20", "-vf",
            "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:fontsize=72:fontcolor=black:x=40:y=140:"
                + "text='AT %{pts\\:flt}'",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", path,
        ])
        return path
    }

    /// The video's time tesseract reads on `output`, and the wall clock when the screenshot was taken.
    static func readVideoTime(_ sway: HeadlessSway, _ output: String) throws -> (
        seconds: Double?, at: Double, text: String
    ) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = Date().timeIntervalSince1970
        try sway.screenshotPNG(output, to: path)
        let at = (before + Date().timeIntervalSince1970) / 2
        let tesseract = try ChildProcess("tesseract", [path, "stdout", "-l", "eng", "--psm", "6"])
        #expect(try tesseract.waitForExit(timeout: 60) == 0, "\(tesseract.output)")
        let text = tesseract.standardOutput
        let number = text.firstMatch(of: /AT\s*(\d+\.\d+)/).flatMap { Double($0.1) }
        return (number, at, text)
    }

    /// Waits until tesseract reads the video's time on `output`, and checks it against the clock (±1.5 s). - Returns:
    /// what it read and what the clock said.
    @discardableResult
    static func expectClockTime(on output: String, in sway: HeadlessSway, epoch: Double) throws -> (
        shown: Double, clock: Double
    ) {
        var reading: (seconds: Double?, at: Double, text: String) = (nil, 0, "")
        try waitUntil(timeout: 10, "the video's time on \(output) (last read: \(reading.text))") {
            reading = try readVideoTime(sway, output)
            return reading.seconds != nil
        }
        let shown = try #require(reading.seconds)
        let clock = (reading.at - epoch).truncatingRemainder(dividingBy: 20)
        print("\(output): the clock says \(clock) s into the video; the screen shows \(shown) s")
        #expect(abs(shown - clock) <= 1.5, "\(output) shows \(shown) s, the clock says \(clock) s: \(reading.text)")
        return (shown, clock)
    }

    @Test func aVideoJoinedMidTurnShowsTheFrameTheClockSays() throws {
        let video = try Self.makeClockVideo(in: MediaFixtures.directory())
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)
        // A list of one 20 s video whose turn began 8 s ago (a list of one starts at its epoch, for ever), on two
        // screens: one pipeline, started 8 s in.
        let epoch = Date().timeIntervalSince1970 - 8
        let items = ["--fit", "stretch", "--epoch", "\(epoch)", video + "@20"]
        let set = try app.command(["playlist", "set", "--screen", "HEADLESS-2", "--screen", "HEADLESS-3"] + items)
        #expect(set.status == 0, "\(set.output)")
        print(try app.waitForLog("(the clock's point)"))
        try Self.expectClockTime(on: "HEADLESS-2", in: sway, epoch: epoch)
        try Self.expectClockTime(on: "HEADLESS-3", in: sway, epoch: epoch)

        // A screen plugged in later, given the same list, joins that pipeline at the clock's frame.
        let added = try sway.createOutput()
        try app.waitForFirstFrame(on: added)
        #expect(try app.command(["playlist", "set", "--screen", added] + items).status == 0)
        try Self.expectClockTime(on: added, in: sway, epoch: epoch)
        #expect(app.log.components(separatedBy: "playing with").count - 1 == 1, "\(app.log)")
        #expect(!app.log.contains("protocol error"))
    }
}
