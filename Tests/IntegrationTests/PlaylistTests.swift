import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 26, playlists: items switched by the wall clock on every screen at once, and picked up where the clock says
/// after a restart. The pictures are made here by ImageMagick.
@Suite(.serialized) struct PlaylistScreensTests {
    static let colours = [RGBColor(hex: 0xFF_00_00), RGBColor(hex: 0x00_FF_00), RGBColor(hex: 0x00_00_FF)]
    static let externals = ["HEADLESS-2", "HEADLESS-3", "HEADLESS-4"]

    /// Samples the external screens for `seconds`: each sample whose screenshots were all taken well inside one second
    /// (the playlist's items are 1 s each from the epoch 0) must show that second's item on every screen.
    /// - Returns: how many samples counted, and the ones that did not show the clock's item.
    static func sample(_ sway: HeadlessSway, seconds: Double) throws -> (counted: Int, wrong: [String]) {
        var counted = 0
        var wrong: [String] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let before = Date().timeIntervalSince1970
            let shots = try externals.map { try sway.screenshot($0) }
            let after = Date().timeIntervalSince1970
            // Well inside one item: 150 ms after the switch (the frame after it is on screen), before the next.
            guard before.rounded(.down) == after.rounded(.down), before - before.rounded(.down) > 0.15 else {
                continue
            }
            counted += 1
            let expected = colours[Int(before.rounded(.down)) % 3]
            for (screen, shot) in zip(externals, shots) where shot.fraction(of: expected, tolerance: 8) < 0.98 {
                wrong.append("\(screen) at \(before): dominant \(shot.dominantColor()), expected \(expected)")
            }
        }
        return (counted, wrong)
    }

    @Test func everyScreenShowsTheItemTheClockSaysAndARestartPicksItUp() throws {
        let directory = try MediaFixtures.directory()
        let files = try MediaFixtures.pictures(["red", "lime", "blue"], in: directory)
        let home = MultiscreenProcess.makeHome()
        let sway = try HeadlessSway(outputs: 4, width: 320, height: 240)
        do {
            let app = try MultiscreenProcess(environment: sway.environment, home: home)
            try app.waitForScreens(4)
            let set = try app.command(
                ["playlist", "set", "--all-external", "--fit", "stretch"] + files.map { $0 + "@1" })
            #expect(set.status == 0, "\(set.output)")
            let result = try Self.sample(sway, seconds: 6)
            #expect(result.counted >= 5, "\(result.counted) samples")
            #expect(result.wrong.isEmpty, "\(result.wrong)")
            let screens = try SharedMirrorTests.status(app)["screens"] as? [[String: Any]] ?? []
            let playlist = screens.first { $0["name"] as? String == "HEADLESS-3" }?["playlist"] as? [String: Any]
            #expect(playlist?["items"] as? Int == 3, "\(screens)")
            app.process.signal(SIGTERM)
            #expect(try app.process.waitForExit(timeout: 10) == 0)
        }
        let again = try MultiscreenProcess(environment: sway.environment, home: home)
        try again.waitForScreens(4)
        // The target: the clock's item within 1 s of the first frames (the first frames may be drawn before the
        // picture is read: there is nothing earlier to keep on screen).
        Thread.sleep(forTimeInterval: 1)
        let result = try Self.sample(sway, seconds: 3)
        #expect(result.counted >= 3 && result.wrong.isEmpty, "\(result)")
        #expect(!again.log.contains("protocol error"))
    }

    /// Interrupts: a 2 s picture over a screen's playlist, started at once, and the playlist's picture back after it.
    @Test func anInterruptShowsForItsSecondsThenThePlaylistReturns() throws {
        let directory = try MediaFixtures.directory()
        let (red, blue) = (directory + "/red.png", directory + "/blue.png")
        try MediaFixtures.convert(["-size", "64x48", "xc:red", red])
        try MediaFixtures.convert(["-size", "64x48", "xc:blue", blue])
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        func shows(_ colour: RGBColor) throws -> Bool {
            try sway.screenshot("HEADLESS-2").fraction(of: colour, tolerance: 8) >= 0.98
        }
        let set = try app.command(["playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", red + "@60"])
        #expect(set.status == 0, "\(set.output)")
        try waitUntil(timeout: 5, "the playlist's red picture") { try shows(Self.colours[0]) }
        let interrupt = try app.command(
            ["playlist", "interrupt", "--screen", "HEADLESS-2", "--seconds", "2", "--fit", "stretch", blue])
        #expect(interrupt.status == 0, "\(interrupt.output)")
        let applied = Date()
        try waitUntil(timeout: 1.5, "the interrupt's blue picture") { try shows(Self.colours[2]) }
        try waitUntil(timeout: 4, "the playlist's red picture again") { try shows(Self.colours[0]) }
        let back = Date().timeIntervalSince(applied)
        #expect(back > 1 && back < 3.5, "red again \(back) s after the interrupt was applied")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// Steps by hand: `playlist next` shows the next picture at once, `pause` holds it past its time, `resume` goes on,
    /// and `schedule set` makes the screen follow a config schedule's playlist instead.
    @Test func nextPauseResumeAndAScheduleChosenAtRunTime() throws {
        let directory = try MediaFixtures.directory()
        let pictures = try MediaFixtures.pictures(["red", "lime", "blue"], in: directory)
        let (red, lime, blue) = (pictures[0], pictures[1], pictures[2])
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let home = MultiscreenProcess.makeHome()
        let config = """
            [[playlist]]
            name = "blue"
            fit = "stretch"
            items = [{ source = "\(blue)", seconds = 600 }]

            [[schedule]]
            name = "all-blue"
            fallback = "blue"
            """
        try MultiscreenProcess.writeConfig(config, home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForScreens(2)
        func shows(_ colour: RGBColor) throws -> Bool {
            try sway.screenshot("HEADLESS-2").fraction(of: colour, tolerance: 8) >= 0.98
        }
        // Two items of 3 s from an epoch now: red first.
        let epoch = String(Int(Date().timeIntervalSince1970))
        let set = try app.command(
            [
                "playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", "--epoch", epoch, red + "@3",
                lime + "@3",
            ])
        #expect(set.status == 0, "\(set.output)")
        try waitUntil(timeout: 5, "the first item, red") { try shows(Self.colours[0]) }
        let next = try app.command(["playlist", "next", "--screen", "HEADLESS-2"])
        #expect(next.status == 0, "\(next.output)")
        try waitUntil(timeout: 1, "the next item, lime, at once") { try shows(Self.colours[1]) }
        let pause = try app.command(["playlist", "pause", "--screen", "HEADLESS-2"])
        #expect(pause.status == 0, "\(pause.output)")
        // Held past its 3 s: still lime.
        Thread.sleep(forTimeInterval: 3.5)
        #expect(try shows(Self.colours[1]))
        let show = try app.command(["playlist", "show", "--screen", "HEADLESS-2", "--json"])
        #expect(show.output.contains(#""paused":true"#), "\(show.output)")
        let resume = try app.command(["playlist", "resume", "--screen", "HEADLESS-2"])
        #expect(resume.status == 0, "\(resume.output)")
        try waitUntil(timeout: 5, "red after the held item's rest") { try shows(Self.colours[0]) }

        let chosen = try app.command(["schedule", "set", "--screen", "HEADLESS-2", "all-blue"])
        #expect(chosen.status == 0, "\(chosen.output)")
        try waitUntil(timeout: 2, "the schedule's blue playlist") { try shows(Self.colours[2]) }
        let schedules = try app.command(["schedule", "show", "--screen", "HEADLESS-2"])
        #expect(schedules.output.contains("all-blue (set at run time)  now: playlist blue"), "\(schedules.output)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// A spread: three screens show consecutive items of one playlist, in the order given, and move along together.
    @Test func aSpreadShowsConsecutiveItemsInTheOrderGiven() throws {
        let directory = try MediaFixtures.directory()
        let files = try MediaFixtures.pictures(["red", "lime", "blue"], in: directory)
        let sway = try HeadlessSway(outputs: 4, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(4)
        // The order given: HEADLESS-4 first, then HEADLESS-2, then HEADLESS-3; items of 2 s from the epoch 0.
        let order = ["HEADLESS-4", "HEADLESS-2", "HEADLESS-3"]
        let set = try app.command(
            ["playlist", "set", "--spread", "--fit", "stretch"] + order.flatMap { ["--screen", $0] }
                + files.map { $0 + "@2" })
        #expect(set.status == 0, "\(set.output)")
        var counted = 0
        var wrong: [String] = []
        let end = Date().addingTimeInterval(7)
        while Date() < end {
            let before = Date().timeIntervalSince1970
            let shots = try order.map { try sway.screenshot($0) }
            let after = Date().timeIntervalSince1970
            // Inside one 2 s item, 150 ms after its switch.
            let turn = (before / 2).rounded(.down)
            guard turn == (after / 2).rounded(.down), before - turn * 2 > 0.15 else { continue }
            counted += 1
            for (place, (screen, shot)) in zip(order, shots).enumerated() {
                let expected = Self.colours[(Int(turn) + place) % 3]
                if shot.fraction(of: expected, tolerance: 8) < 0.98 {
                    wrong.append("\(screen) at \(before): dominant \(shot.dominantColor()), expected \(expected)")
                }
            }
        }
        #expect(counted >= 4, "\(counted) samples")
        #expect(wrong.isEmpty, "\(wrong)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// Items Multiscreen draws itself: a text slide (white words on the screen's background), a card (a light panel)
    /// and blank (black), stepped through with `playlist next`.
    @Test func textSlidesCardsAndBlankItems() throws {
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        let white = RGBColor(hex: 0xF8_FA_FC)
        func shot() throws -> Screenshot { try sway.screenshot("HEADLESS-2") }
        let epoch = String(Int(Date().timeIntervalSince1970))
        let set = try app.command(
            [
                "playlist", "set", "--screen", "HEADLESS-2", "--epoch", epoch, "text:Lunch at noon@600",
                "card:Menu@600",
                "blank@600",
            ])
        #expect(set.status == 0, "\(set.output)")
        try waitUntil(timeout: 5, "the text slide: white words on the screen's background") {
            let words = try shot().fraction(of: white, tolerance: 24)
            // The words' strokes: a few hundred pixels at this size (a screen without messages has none).
            return words > 0.001 && words < 0.3
        }
        #expect(try shot().fraction(of: RGBColor(hex: 0), tolerance: 8) < 0.5)
        #expect(try app.command(["playlist", "next", "--screen", "HEADLESS-2"]).status == 0)
        try waitUntil(timeout: 2, "the card's light panel") { try shot().fraction(of: white, tolerance: 8) > 0.4 }
        #expect(try app.command(["playlist", "next", "--screen", "HEADLESS-2"]).status == 0)
        try waitUntil(timeout: 2, "blank: black") { try shot().fraction(of: RGBColor(hex: 0), tolerance: 8) > 0.98 }
        let history = try app.command(["playlist", "history", "--screen", "HEADLESS-2", "--json"])
        #expect(history.output.contains(#""source":"text:Lunch at noon""#), "\(history.output)")
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }

    /// A playlist of pictures reads each file once (read ahead of its turn, then kept decoded), and a file replaced on
    /// disk is read again at its next turn.
    @Test func picturesAreReadOnceAndAgainWhenTheirFileChanges() throws {
        let directory = try MediaFixtures.directory()
        let (red, lime) = (directory + "/red.png", directory + "/lime.png")
        try MediaFixtures.convert(["-size", "64x48", "xc:red", red])
        try MediaFixtures.convert(["-size", "64x48", "xc:lime", lime])
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment, home: MultiscreenProcess.makeHome())
        try app.waitForScreens(2)
        let set = try app.command([
            "playlist", "set", "--screen", "HEADLESS-2", "--fit", "stretch", red + "@1", lime + "@1",
        ])
        #expect(set.status == 0, "\(set.output)")
        func decodes(_ path: String) -> Int {
            app.log.split(separator: "\n").filter { $0.hasSuffix("decoded: \(path)") }.count
        }
        // Three cycles (six turns recorded by the proof of play): each picture decoded once.
        try waitUntil(timeout: 15, "six turns played") {
            try app.command(["playlist", "history", "--screen", "HEADLESS-2", "--json"]).output
                .split(separator: "\n").count >= 6
        }
        #expect(decodes(red) == 1 && decodes(lime) == 1, "\(decodes(red)) and \(decodes(lime)) decodes")
        // A new file renamed over red.png, as deployment tools replace files: blue at red's next turns.
        try MediaFixtures.convert(["-size", "64x48", "xc:blue", directory + "/incoming.png"])
        #expect(rename(directory + "/incoming.png", red) == 0)
        try waitUntil(timeout: 5, "the replaced file's blue picture") {
            try sway.screenshot("HEADLESS-2").fraction(of: Self.colours[2], tolerance: 8) >= 0.98
        }
        #expect(decodes(red) == 2)
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 10) == 0)
    }
}
