import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 26: an item that crossfades in. Red and blue pictures of 2 s each, crossfading: in the first second after a
/// switch the screen is a mix of the two, the one before fading out (red and blue both strong, evenly over the screen);
/// after it, the new item alone. With cuts, no sample is ever a mix.
@Suite(.serialized) struct PlaylistCrossfadeScreensTests {
    /// Samples HEADLESS-2 for `seconds` from the second cycle on: each screenshot's dominant colour, by where it was
    /// taken in its item's turn (seconds after the switch).
    static func sample(_ sway: HeadlessSway, epoch: Double, seconds: Double) throws -> [(
        place: Double, colour: RGBColor
    )] {
        var samples: [(Double, RGBColor)] = []
        while Date().timeIntervalSince1970 < epoch + 4 + seconds {
            let before = Date().timeIntervalSince1970
            guard before >= epoch + 4 else {
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            let shot = try sway.screenshot("HEADLESS-2")
            let after = Date().timeIntervalSince1970
            // A mix is the same everywhere on the screen: the dominant colour is the screen's colour.
            samples.append((((before + after) / 2 - epoch).truncatingRemainder(dividingBy: 2), shot.dominantColor()))
        }
        return samples
    }

    static func isMix(_ colour: RGBColor) -> Bool {
        (30...225).contains(colour.red) && (30...225).contains(colour.blue) && colour.green < 30
    }

    /// `items`: the playlist's items, given the red and the blue picture's paths (by default each for 2 s).
    static func setUp(crossfade: Bool, items: (String, String) -> [String] = { [$0 + "@2", $1 + "@2"] }) throws -> (
        HeadlessSway, MultiscreenProcess, Double
    ) {
        let directory = try MediaFixtures.directory()
        let (red, blue) = (directory + "/red.png", directory + "/blue.png")
        try MediaFixtures.convert(["-size", "64x48", "xc:red", red])
        try MediaFixtures.convert(["-size", "64x48", "xc:blue", blue])
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        let epoch = Date().timeIntervalSince1970.rounded(.down)
        let set = try app.command(
            ["playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", "--epoch", "\(Int(epoch))"]
                + (crossfade ? ["--crossfade"] : []) + items(red, blue))
        #expect(set.status == 0, "\(set.output)")
        return (sway, app, epoch)
    }

    @Test func anItemCrossfadesInOverTheOneBefore() throws {
        let (sway, app, epoch) = try Self.setUp(crossfade: true)
        let samples = try Self.sample(sway, epoch: epoch, seconds: 6)
        let fading = samples.filter { $0.place > 0.3 && $0.place < 0.7 }
        let settled = samples.filter { $0.place > 1.3 && $0.place < 1.9 }
        #expect(fading.count >= 3 && settled.count >= 3, "\(samples)")
        #expect(fading.allSatisfy { Self.isMix($0.colour) }, "in the fade: \(fading)")
        #expect(settled.allSatisfy { !Self.isMix($0.colour) }, "after the fade: \(settled)")
        #expect(!app.log.contains("protocol error"))
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// Blank and a picture: the picture's layer, made after the fade's, is stacked under it; the picture fades out
    /// over the window's black.
    @Test func aPictureFadesInOverBlankAndOutAgain() throws {
        let (sway, app, epoch) = try Self.setUp(crossfade: true) { _, blue in ["blank@2", blue + "@2"] }
        let samples = try Self.sample(sway, epoch: epoch, seconds: 6)
        let fading = samples.filter { $0.place > 0.3 && $0.place < 0.7 }
        #expect(fading.count >= 3, "\(samples)")
        let darkBlue = { (colour: RGBColor) in (30...225).contains(colour.blue) && colour.red < 30 && colour.green < 30
        }
        #expect(fading.allSatisfy { darkBlue($0.colour) }, "in the fades: \(fading)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    @Test func aCutNeverShowsAMix() throws {
        let (sway, app, epoch) = try Self.setUp(crossfade: false)
        let samples = try Self.sample(sway, epoch: epoch, seconds: 4)
        #expect(samples.count >= 8, "\(samples)")
        #expect(samples.allSatisfy { !Self.isMix($0.colour) }, "\(samples)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
