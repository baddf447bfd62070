import CompositorHarness
import Foundation
import Outputs
import Testing

/// Issue 25, images: a picture per fit mode and turn, shown through the compositor on headless sway, compared pixel by
/// pixel with the same picture scaled by ImageMagick; EXIF orientation; and bad files refused with the screen left as
/// it was. The media are made here, by ImageMagick.
@Suite(.serialized) struct MediaImageTests {
    static let black = RGBColor(hex: 0x00_00_00)

    /// A 400×200 picture of four quadrants (red, lime / blue, yellow) with a white diagonal stripe, in `directory`:
    /// its turn and crop are plain to see, and its edges test the scaling.
    static func makeQuadrants(in directory: String) throws -> String {
        let path = directory + "/quadrants.png"
        try MediaFixtures.convert([
            "(", "-size", "200x100", "xc:red", "xc:lime", "+append", ")",
            "(", "-size", "200x100", "xc:blue", "xc:yellow", "+append", ")", "-append",
            "-stroke", "white", "-strokewidth", "9", "-draw", "line 0,0 399,199", path,
        ])
        return path
    }

    /// The fraction of `shot`'s pixels within `tolerance` of `expected`'s pixel at the same place or one next to it
    /// (the compositor's bilinear filter and ImageMagick's resampling differ at edges).
    static func fractionMatching(_ shot: Screenshot, _ expected: Screenshot, tolerance: Int = 40) -> Double {
        guard shot.width == expected.width, shot.height == expected.height, shot.width * shot.height > 0 else {
            return 0
        }
        var matching = 0
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let pixel = shot.pixel(x: x, y: y)
                search: for dy in -1...1 {
                    for dx in -1...1 {
                        let px = min(max(x + dx, 0), shot.width - 1)
                        let py = min(max(y + dy, 0), shot.height - 1)
                        if expected.pixel(x: px, y: py).distance(to: pixel) <= tolerance {
                            matching += 1
                            break search
                        }
                    }
                }
            }
        }
        return Double(matching) / Double(shot.width * shot.height)
    }

    /// Shows `file` on `screen` through the CLI; the reply comes once it is decoded.
    static func show(
        _ app: MultiscreenProcess, _ file: String, on screen: String, _ options: [String] = []
    ) throws -> (status: Int32, output: String) {
        try app.command(["media", "show", "--screen", screen] + options + [file])
    }

    @Test func eachFitAndTurnShowsThePictureAsImageMagickScalesIt() throws {
        let directory = try MediaFixtures.directory()
        let picture = try Self.makeQuadrants(in: directory)
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)

        // ImageMagick's version of each case: the operations after the file, then the region of the screen it fills.
        let cases: [(options: [String], magick: [String], region: (x: Int, y: Int, width: Int, height: Int))] = [
            // 2:1 into 4:3: full width, 320 tall at y 80, black above and below.
            ([], ["-resize", "640x320!"], (0, 80, 640, 320)),
            // Cover: scaled to 960×480, the middle 640 columns.
            (["--fit", "cover"], ["-resize", "960x480!", "-crop", "640x480+160+0"], (0, 0, 640, 480)),
            (["--fit", "stretch"], ["-resize", "640x480!"], (0, 0, 640, 480)),
            // Center: 400×200 at (120, 140).
            (["--fit", "center"], [], (120, 140, 400, 200)),
            // A quarter turn clockwise: 200×400, contained in 640×480 as 240×480 at x 200.
            (["--rotate", "90"], ["-rotate", "90", "-resize", "240x480!"], (200, 0, 240, 480)),
            (["--rotate", "180", "--fit", "stretch"], ["-rotate", "180", "-resize", "640x480!"], (0, 0, 640, 480)),
        ]
        for (options, magick, region) in cases {
            let result = try Self.show(app, picture, on: "HEADLESS-2", options)
            #expect(result.status == 0, "media show \(options): \(result.output)")
            let expected = try MediaFixtures.convertToScreenshot(picture, magick)
            try sway.waitForScreenshot("HEADLESS-2", "the picture with \(options)") { shot in
                let inside = shot.region(x: region.x, y: region.y, width: region.width, height: region.height)
                let outside =
                    shot.count { $0.distance(to: Self.black) <= 8 } - inside.count { $0.distance(to: Self.black) <= 8 }
                let border = shot.width * shot.height - region.width * region.height
                return Self.fractionMatching(inside, expected) > 0.97 && outside >= border * 99 / 100
            }
        }
        // The same file on another screen is not decoded again.
        #expect(try Self.show(app, picture, on: "HEADLESS-3").status == 0)
        try sway.waitForScreenshot("HEADLESS-3", "the picture on a second screen") {
            Self.fractionMatching(
                $0.region(x: 0, y: 80, width: 640, height: 320),
                try! MediaFixtures.convertToScreenshot(picture, ["-resize", "640x320!"])) > 0.97
        }
        let status = try SharedMirrorTests.status(app)
        let screens = status["screens"] as? [[String: Any]] ?? []
        let media = screens.first { $0["name"] as? String == "HEADLESS-3" }?["media"] as? [String: Any]
        #expect(media?["state"] as? String == "showing")
        #expect(media?["path"] as? String == picture)
        #expect(app.log.components(separatedBy: "image 400x200 on").count - 1 == cases.count + 1)
        #expect(!app.log.contains("protocol error"))
    }

    @Test func aJPEGsEXIFOrientationIsHonoured() throws {
        let directory = try MediaFixtures.directory()
        let picture = try Self.makeQuadrants(in: directory)
        // The pixels stay as they are; the EXIF tag says "turn me a quarter clockwise to view".
        let upright = directory + "/upright.jpg"
        try MediaFixtures.convert([picture, "-quality", "95", upright])
        let jpeg = directory + "/turned.jpg"
        try MediaFixtures.writeJPEG(upright, orientation: 6, to: jpeg)
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        let result = try Self.show(app, jpeg, on: "HEADLESS-2", ["--fit", "stretch"])
        #expect(result.status == 0, "\(result.output)")
        let expected = try MediaFixtures.convertToScreenshot(picture, ["-rotate", "90", "-resize", "640x480!"])
        try sway.waitForScreenshot("HEADLESS-2", "the JPEG turned as its EXIF says") {
            Self.fractionMatching($0, expected, tolerance: 60) > 0.95
        }
    }

    @Test func anAnimatedGIFPlaysAndAWebPAndAnSVGShow() throws {
        let directory = try MediaFixtures.directory()
        // Two frames, 0.2 s each: red, then blue, repeating.
        let gif = directory + "/blink.gif"
        try MediaFixtures.convert(["-delay", "20", "-size", "64x48", "xc:red", "xc:blue", "-loop", "0", gif])
        let webp = directory + "/lime.webp"
        try MediaFixtures.convert(["-size", "64x48", "xc:lime", webp])
        let svg = directory + "/yellow.svg"
        try
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48"><rect width="64" height="48" fill="#ffff00"/></svg>"##
            .write(toFile: svg, atomically: true, encoding: .utf8)
        let sway = try HeadlessSway(outputs: 3, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)
        #expect(try app.command(["media", "show", "--screen", "HEADLESS-2", "--fit", "stretch", gif]).status == 0)
        for color in [RGBColor(hex: 0xFF_00_00), RGBColor(hex: 0x00_00_FF), RGBColor(hex: 0xFF_00_00)] {
            try sway.waitForScreenshot("HEADLESS-2", "the GIF's \(color) frame") {
                $0.fraction(of: color, tolerance: 8) > 0.98
            }
        }
        #expect(try app.command(["media", "show", "--screen", "HEADLESS-3", "--fit", "stretch", webp]).status == 0)
        try sway.waitForScreenshot("HEADLESS-3", "the WebP") {
            $0.fraction(of: RGBColor(hex: 0x00_FF_00), tolerance: 8) > 0.98
        }
        #expect(try app.command(["media", "show", "--screen", "HEADLESS-3", "--fit", "stretch", svg]).status == 0)
        try sway.waitForScreenshot("HEADLESS-3", "the SVG") {
            $0.fraction(of: RGBColor(hex: 0xFF_FF_00), tolerance: 8) > 0.98
        }
        #expect(!app.log.contains("protocol error"))
    }

    /// A config rule's picture shows from the start; one shown at run time comes back after a restart.
    @Test func aRulesPictureShowsAndARunTimeOneIsRestored() throws {
        let directory = try MediaFixtures.directory()
        let red = directory + "/red.png"
        try MediaFixtures.convert(["-size", "32x32", "xc:red", red])
        let blue = directory + "/blue.jpg"
        try MediaFixtures.convert(["-size", "32x32", "xc:blue", blue])
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            content = "image"
            path = "\(red)"
            fit = "stretch"
            """, home: home)
        let sway = try HeadlessSway(outputs: 3, width: 320, height: 240)
        do {
            let first = try MultiscreenProcess(environment: sway.environment, home: home)
            try first.waitForScreens(3)
            try sway.waitForScreenshot("HEADLESS-2", "the rule's picture") {
                $0.fraction(of: RGBColor(hex: 0xFF_00_00), tolerance: 8) > 0.98
            }
            #expect(try first.command(["media", "show", "--screen", "HEADLESS-3", "--fit", "cover", blue]).status == 0)
            try sway.waitForScreenshot("HEADLESS-3", "the picture shown at run time") {
                $0.fraction(of: RGBColor(hex: 0x00_00_FF), tolerance: 8) > 0.98
            }
            first.process.signal(SIGTERM)
            #expect(try first.process.waitForExit(timeout: 10) == 0)
        }
        let second = try MultiscreenProcess(environment: sway.environment, home: home)
        try second.waitForScreens(3)
        try sway.waitForScreenshot("HEADLESS-3", "the restored picture") {
            $0.fraction(of: RGBColor(hex: 0x00_00_FF), tolerance: 8) > 0.98
        }
        try sway.waitForScreenshot("HEADLESS-2", "the rule's picture again") {
            $0.fraction(of: RGBColor(hex: 0xFF_00_00), tolerance: 8) > 0.98
        }
        let media = try MediaVideoTests.media(second, "HEADLESS-3")
        #expect(media["fit"] as? String == "cover" && media["state"] as? String == "showing", "\(media)")
    }

    @Test func aFileThatCannotBeShownIsRefusedAndTheScreenKeepsItsPicture() throws {
        let directory = try MediaFixtures.directory()
        let picture = try Self.makeQuadrants(in: directory)
        let truncated = directory + "/truncated.jpg"
        try MediaFixtures.convert([picture, truncated])
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try jpeg.prefix(jpeg.count / 2).write(to: URL(fileURLWithPath: truncated))
        let empty = directory + "/empty.png"
        FileManager.default.createFile(atPath: empty, contents: Data())
        let bomb = directory + "/bomb.png"
        try MediaFixtures.writePNG(claiming: 100_000, 100_000, to: bomb)
        let text = directory + "/notes.png"
        try "not a picture at all\n".write(toFile: text, atomically: true, encoding: .utf8)

        let sway = try HeadlessSway(outputs: 2, width: 640, height: 480)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        #expect(try Self.show(app, picture, on: "HEADLESS-2", ["--fit", "stretch"]).status == 0)
        // The picture shown and the screen settled: two screenshots in a row alike.
        var previous: Screenshot?
        let shown = try sway.waitForScreenshot("HEADLESS-2", "the picture, settled") { shot in
            defer { previous = shot }
            return shot.fraction(of: Self.black) < 0.01
                && previous.map { shot.fraction(differingFrom: $0) == 0 } == true
        }

        let refusals: [(file: String, says: String)] = [
            (directory + "/missing.png", "no such file: \(directory)/missing.png"),
            (directory, "not a regular file"),
            (empty, "empty file (0 bytes)"),
            (truncated, "damaged file \(truncated)"),
            (bomb, "100000×100000 pixels is more than the limit"),
            (text, "neither an image nor a video"),
        ]
        for (file, says) in refusals {
            let result = try Self.show(app, file, on: "HEADLESS-2")
            #expect(result.status == 2, "\(file): \(result.output)")
            #expect(result.output.contains("-32006") || result.output.contains(says), "\(result.output)")
            #expect(result.output.contains(says), "\(file): \(result.output)")
        }
        try app.waitForLog("media on HEADLESS-2 refused: no such file")
        // The screen still shows the picture.
        #expect(try sway.screenshot("HEADLESS-2").fraction(differingFrom: shown) < 0.001)

        // A hundred refusals leave no descriptor and no memory behind (the control socket's connections, which the
        // server closes after the client, are not counted).
        let pid = app.process.pid
        let before = (
            fds: WebPageTests.descriptors(pid).filter { !$0.contains("socket:") }, rss: MediaFixtures.residentKiB(pid)
        )
        for index in 0..<100 {
            let file = [bomb, empty, truncated, text][index % 4]
            _ = try app.request(
                #"{"method": "media.show", "params": {"screen": "HEADLESS-2", "path": "\#(file)"}}"#)
        }
        let after = (
            fds: WebPageTests.descriptors(pid).filter { !$0.contains("socket:") }, rss: MediaFixtures.residentKiB(pid)
        )
        #expect(after.fds.count <= before.fds.count, "descriptors \(before.fds) → \(after.fds)")
        #expect(after.rss < before.rss + 8 * 1024, "RSS \(before.rss) → \(after.rss) KiB")
        #expect(try sway.screenshot("HEADLESS-2").fraction(differingFrom: shown) < 0.001)
        #expect(app.process.isRunning)
    }
}
