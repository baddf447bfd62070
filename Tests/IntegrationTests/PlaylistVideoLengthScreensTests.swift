import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 26: a video item without seconds plays its own length. A 3 s blue video and a red picture for 2 s make a
/// 5 s cycle from the epoch: the screen is blue for the first 3 s of each cycle and red for the last 2, by pixels.
@Suite(.serialized) struct PlaylistVideoLengthScreensTests {
    @Test func aVideoWithoutSecondsPlaysItsOwnLength() throws {
        let directory = try MediaFixtures.directory()
        let video = directory + "/blue-3s.mp4"
        try MediaFixtures.ffmpeg([
            "-f", "lavfi", "-i", "color=c=blue:s=320x240:r=25", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            video,
        ])
        let red = directory + "/red.png"
        try MediaFixtures.convert(["-size", "64x48", "xc:red", red])
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        let epoch = Date().timeIntervalSince1970.rounded(.down)
        let set = try app.command([
            "playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", "--epoch", "\(Int(epoch))", video,
            red + "@2",
        ])
        #expect(set.status == 0, "\(set.output)")

        // `playlist.show` says the video's measured length.
        try waitUntil(timeout: 5, "the video's length in playlist.show") {
            let reply = try app.request(#"{"method": "playlist.show", "params": {"screen": "HEADLESS-2"}}"#)
            let json = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
            let items = (json?["result"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
            guard let length = items.first?["length"] as? Double else { return false }
            #expect(abs(length - 3) < 0.1, "\(items)")
            return true
        }

        let blue = RGBColor(hex: 0x00_00_FF)
        let redColour = RGBColor(hex: 0xFF_00_00)
        var counted = (blue: 0, red: 0)
        var wrong: [String] = []
        // From the second cycle on: in the first, the video was being measured and its pipeline started late.
        let end = epoch + 16
        while Date().timeIntervalSince1970 < end {
            let before = Date().timeIntervalSince1970
            guard before >= epoch + 5 else {
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            let shot = try sway.screenshot("HEADLESS-2")
            let after = Date().timeIntervalSince1970
            let (place, placeAfter) = ((before - epoch).truncatingRemainder(dividingBy: 5), after - before)
            // Well inside one turn: 300 ms after a switch (a video's first frame takes a moment), 200 ms before the next.
            let expected: RGBColor
            if place > 0.3 && place + placeAfter < 2.8 {
                expected = blue
                counted.blue += 1
            } else if place > 3.3 && place + placeAfter < 4.8 {
                expected = redColour
                counted.red += 1
            } else {
                continue
            }
            if shot.fraction(of: expected, tolerance: 40) < 0.95 {
                wrong.append(
                    "at \(place) s into the cycle, \(before - epoch) s from the epoch: dominant \(shot.dominantColor()), expected \(expected)"
                )
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(counted.blue >= 5 && counted.red >= 3, "\(counted)")
        #expect(wrong.isEmpty, "\(wrong)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
