import CompositorHarness
import Foundation
import Outputs
import Remote
import Screens
import Testing

/// Issue 13, text and fit: what external screens and the controller show, checked on real screenshots of a headless
/// sway — right-to-left text read back by OCR in order, a 64 KiB message inside its box, colour emoji, no debug
/// chrome, the installer overlay and theme, and twelve screens with the focused row in view.
@Suite(.serialized) struct TextOnScreensTests {
    private func send(_ app: MultiscreenProcess, _ text: String, to screen: String) throws {
        let params: [String: String] = ["text": text, "screen": screen]
        let data = try JSONSerialization.data(withJSONObject: ["method": "send", "params": params])
        let reply = try app.request(String(decoding: data, as: UTF8.self))
        #expect(reply.contains("\"result\""), "\(reply.prefix(200))")
    }

    /// Reads the text in `shot` with tesseract: the picture is turned into dark ink on white (distance from the
    /// background), which tesseract reads best.
    private func ocr(_ shot: Screenshot, background: RGBColor, languages: String) throws -> String {
        var pgm = Array("P5\n\(shot.width) \(shot.height)\n255\n".utf8)
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                pgm.append(UInt8(255 - min(shot.pixel(x: x, y: y).distance(to: background) * 2, 255)))
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString).pgm").path
        try Data(pgm).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // OCR_DUMP_DIR keeps what tesseract was given, to look at when a reading fails.
        if let directory = ProcessInfo.processInfo.environment["OCR_DUMP_DIR"] {
            try? Data(pgm).write(to: URL(fileURLWithPath: "\(directory)/\(languages)-\(UUID().uuidString).pgm"))
        }
        let tesseract = try ChildProcess("tesseract", [path, "stdout", "-l", languages, "--psm", "3"])
        #expect(try tesseract.waitForExit(timeout: 60) == 0, "\(tesseract.output)")
        return tesseract.standardOutput
    }

    /// The bounding box of pixels differing from `background` by more than `tolerance`.
    private func inkBounds(_ shot: Screenshot, background: RGBColor, tolerance: Int = 24)
        -> (minX: Int, minY: Int, maxX: Int, maxY: Int)?
    {
        var bounds: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        for y in 0..<shot.height {
            for x in 0..<shot.width where shot.pixel(x: x, y: y).distance(to: background) > tolerance {
                if let b = bounds {
                    bounds = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
                } else {
                    bounds = (x, y, x, y)
                }
            }
        }
        return bounds
    }

    /// The screen's own background (not the compositor's before the first frame), with something drawn on it.
    private func showsText(_ shot: Screenshot, background: RGBColor) -> Bool {
        shot.fraction(of: background, tolerance: 2) > 0.5 && inkBounds(shot, background: background) != nil
    }

    /// "13:45:09" as the screen shows it: the time `text` names must be within a minute of now (a reversed time,
    /// "90:54:31", is not a time at all).
    private func containsCurrentTime(_ text: String) -> Bool {
        let pattern = try! NSRegularExpression(pattern: "([0-2][0-9]):([0-5][0-9]):([0-5][0-9])")
        let now = Calendar.current.dateComponents([.hour, .minute, .second], from: Date())
        let nowSeconds = now.hour! * 3600 + now.minute! * 60 + now.second!
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).contains { match in
            let parts = (1...3).map { Int((text as NSString).substring(with: match.range(at: $0)))! }
            return abs(parts[0] * 3600 + parts[1] * 60 + parts[2] - nowSeconds) < 60
        }
    }

    @Test func mixedRightToLeftTextAndItsTimeReadInOrder() throws {
        let sway = try HeadlessSway(outputs: 3, width: 960, height: 540)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(3)
        let cases = [
            ("HEADLESS-2", "مرحبا بالعالم 123 Hello", "ara+eng", 1, ["مرحبا", "123", "Hello"]),
            ("HEADLESS-3", "שלום עולם 2024 (test)", "heb+eng", 2, ["שלום", "2024", "test"]),
        ]
        for (screen, text, languages, index, words) in cases {
            try send(app, text, to: screen)
            let background = expectedBackground(index)
            let shot = try sway.waitForScreenshot(screen, "the message on \(screen)") {
                showsText($0, background: background)
            }
            let read = try ocr(shot, background: background, languages: languages)
            let lines = read.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
            // Tesseract gives lines in reading (logical) order: the right-to-left words, then the number, then
            // the Latin word. A renderer without UAX #9 shows "olleH 321" or "(tset) 4202".
            let first = try #require(lines.first, "OCR read nothing: \(read)")
            for word in words { #expect(first.contains(word), "\(screen): \(read)") }
            #expect(
                !read.contains("olleH") && !read.contains("321") && !read.contains("4202") && !read.contains("tset"))
            let positions = words.compactMap { first.range(of: $0)?.lowerBound }
            #expect(positions.count == words.count && positions == positions.sorted(), "out of order: \(first)")
            // The time is digits and colons, which tesseract's Hebrew and Arabic models read less reliably than its
            // English one (seen once: "22:30:58" read as "222007" with heb+eng): read with eng too.
            let timeRead = containsCurrentTime(read) ? read : try ocr(shot, background: background, languages: "eng")
            #expect(containsCurrentTime(timeRead), "the message's time, in order: \(read) / \(timeRead)")
            // Right-to-left text starts at the right: its ink reaches the right margin, not the left one.
            let ink = try #require(inkBounds(shot, background: background))
            #expect(ink.maxX > shot.width * 3 / 4 && ink.minX > shot.width / 10, "\(ink)")
        }
    }

    /// `VmRSS` and `VmHWM` (peak) of a process in bytes.
    private func memory(_ pid: pid_t) -> (resident: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    @Test(arguments: [(640, 360), (1920, 1080)])
    func a64KiBMessageStaysInItsBoxWithAnEllipsisAndBoundedMemory(size: (width: Int, height: Int)) throws {
        let (width, height) = size
        let sway = try HeadlessSway(outputs: 2, width: width, height: height)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        try send(app, "short one", to: "HEADLESS-2")
        let background = expectedBackground(1)
        try sway.waitForScreenshot("HEADLESS-2", "the short message") { showsText($0, background: background) }
        let before = memory(app.process.pid)
        // Exactly the largest text the socket accepts: 65 536 bytes of words.
        var long = ""
        while long.utf8.count < 65_536 - 12 { long += "signage \(long.utf8.count % 1000) " }
        long += String(repeating: "x", count: 65_536 - long.utf8.count)
        #expect(long.utf8.count == 65_536)
        try send(app, long, to: "HEADLESS-2")
        try app.waitForLog("message #2 for HEADLESS-2")
        let shot = try sway.waitForScreenshot("HEADLESS-2", "the long message") {
            guard let ink = inkBounds($0, background: background) else { return false }
            return $0.fraction(of: background, tolerance: 2) > 0.5 && ink.maxY > height / 2
        }
        // Inside the margin on every side (0.06 of the screen's height), nothing pushed off the bottom: the older
        // message's line is still there below the long one.
        let margin = Int(Double(height) * 0.06) - 1
        let ink = try #require(inkBounds(shot, background: background))
        #expect(
            ink.minX >= margin && ink.minY >= margin && ink.maxX < width - margin && ink.maxY < height - margin,
            "\(ink)")
        let read = try ocr(shot, background: background, languages: "eng")
        #expect(read.contains("short one"), "the older message stays on screen: \(read)")
        #expect(read.contains("…") || read.contains("..."), "an ellipsis ends the long message: \(read)")
        let after = memory(app.process.pid)
        let growth = after.resident - before.resident
        let peakGrowth = after.peak - before.peak
        print(
            "64 KiB message at \(width)×\(height): resident \(before.resident >> 10) → \(after.resident >> 10) KiB, "
                + "peak \(before.peak >> 10) → \(after.peak >> 10) KiB")
        #expect(growth < 24 << 20, "a 64 KiB message grew the process by \(growth >> 10) KiB")
        #expect(peakGrowth < 32 << 20, "a 64 KiB message raised the peak by \(peakGrowth >> 10) KiB")
        #expect(app.process.isRunning)
    }

    @Test func colourEmojiAreDrawnInColour() throws {
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        // Green emoji on the red screen (index 1): white text over red blends to pinks, never to green.
        func green(_ shot: Screenshot) -> Int {
            shot.count { Int($0.green) > Int($0.red) + 60 && Int($0.green) > Int($0.blue) + 30 }
        }
        let plain = try sway.waitForScreenshot("HEADLESS-2") { $0.fraction(of: expectedBackground(1)) > 0.99 }
        #expect(green(plain) == 0)
        try send(app, "🍏🥦 fresh", to: "HEADLESS-2")
        try sway.waitForScreenshot("HEADLESS-2", "green emoji") { green($0) > 300 }
    }

    @Test func externalScreensShowNoChromeAndTheInfoOverlayOnRequest() throws {
        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        // Nothing but the screen's colour, edge to edge: no bar, no header naming the output.
        try sway.waitForScreenshot("HEADLESS-2", "a clean idle screen") {
            $0.fraction(of: expectedBackground(1), tolerance: 2) > 0.999
        }
        try send(app, "Platform 4", to: "HEADLESS-2")
        let shot = try sway.waitForScreenshot("HEADLESS-2", "the message") {
            showsText($0, background: expectedBackground(1))
        }
        let read = try ocr(shot, background: expectedBackground(1), languages: "eng")
        #expect(read.contains("Platform 4"))
        #expect(!read.contains("HEADLESS") && !read.contains("screen 2 of"), "chrome: \(read)")
        // A card: its text on the panel, no "#1 · HEADLESS-2" header.
        _ = try app.request(#"{"method": "card.open", "params": {"screen": "HEADLESS-2", "text": "Gate 7"}}"#)
        let panel = RGBColor(hex: 0xF8_FA_FC)
        let card = try sway.waitForScreenshot("HEADLESS-2", "the card") { $0.fraction(of: panel) > 0.5 }
        let cardText = try ocr(card, background: panel, languages: "eng")
        #expect(
            cardText.contains("Gate 7") && !cardText.contains("HEADLESS") && !cardText.contains("#1"), "\(cardText)")
        _ = try app.request(#"{"method": "card.close", "params": {"screen": "HEADLESS-2"}}"#)
        // The controller's status bar speaks to the staff; the bus's counters and the latency figures are for
        // installers (`info = true`, below).
        let controller = try statusBarText(try sway.screenshot("HEADLESS-1"))
        #expect(controller.contains("2 screens") && controller.contains("1 message"), "\(controller)")
        #expect(!controller.contains("bus") && !controller.contains("wakeups"), "engineering figures: \(controller)")

        // The installer overlay and a theme, from the config.
        app.process.signal(SIGTERM)
        #expect(try app.process.waitForExit(timeout: 5) == 0)
        try MultiscreenProcess.writeConfig(
            """
            [theme]
            info = true
            background = "#204060"
            text = "#FFFF00"
            align = "center"
            show-time = false
            """, home: app.home)
        let themed = try MultiscreenProcess(environment: sway.environment, home: app.home)
        try themed.waitForScreens(2)
        let background = RGBColor(hex: 0x20_40_60)
        let withInfo = try sway.waitForScreenshot("HEADLESS-2", "the overlay and the themed message") {
            $0.fraction(of: background, tolerance: 2) > 0.8 && $0.fraction(of: RGBColor(hex: 0xFF_FF_00)) > 0.002
        }
        let info = try ocr(withInfo, background: background, languages: "eng")
        #expect(info.contains("HEADLESS-2") && info.contains("640") && info.contains("360"), "\(info)")
        let installer = try statusBarText(try sway.screenshot("HEADLESS-1"))
        #expect(installer.contains("2 screens") && installer.contains("wakeups"), "\(installer)")
        // Centred: the yellow message's ink is balanced about the middle.
        var columns: [Int] = []
        for y in 0..<withInfo.height {
            for x in 0..<withInfo.width where withInfo.pixel(x: x, y: y) == RGBColor(hex: 0xFF_FF_00) {
                columns.append(x)
            }
        }
        let middle = (columns.min()! + columns.max()!) / 2
        #expect(abs(middle - 320) < 12, "yellow ink spans \(columns.min()!)…\(columns.max()!)")
    }

    /// The text of the controller's status bar, read from a screenshot of the controller.
    private func statusBarText(_ shot: Screenshot) throws -> String {
        let bar = ControllerLayout(width: Float(shot.width), height: Float(shot.height), rowCount: 2).status
        let strip = shot.region(x: Int(bar.x), y: Int(bar.y), width: Int(bar.width), height: Int(bar.height))
        // The bar's own colour: its last pixel, right of any text.
        return try ocr(strip, background: strip.pixel(x: strip.width - 1, y: strip.height - 1), languages: "eng")
    }

    @Test func twelveScreensKeepTheFocusedRowInView() throws {
        let sway = try HeadlessSway(outputs: 12, width: 480, height: 270)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(12, timeout: 60)
        let holder = try ChildProcess("wtype", ["-s", "600000"], environment: sway.environment)
        defer { holder.kill() }
        try app.waitForLog("seat: keyboard")
        let ring = RGBColor(hex: 0xFA_CC_15)
        let layout = ControllerLayout(width: 480, height: 270, rowCount: 12, focusedRow: 11)
        #expect(!layout.visibleRows.contains(0), "12 rows must not all fit, or this tests nothing")
        let row = layout.rows[11]
        // Down from the text field: the first row, then each next one, to the last.
        let keys = Array(repeating: ["-k", "Down"], count: 12).flatMap { $0 }
        let typist = try ChildProcess("wtype", keys, environment: sway.environment)
        #expect(try typist.waitForExit(timeout: 10) == 0)
        // The focus ring sits around the last visible slot where the scrolled layout puts row 11, above the status
        // bar, and the row in it is the last screen's (the keys may still be arriving: row 10 passes through the
        // same slot, so the name decides). A key wtype loses on a loaded machine is made up for with another Down,
        // which is harmless on the last row.
        var attempts = 0
        try sway.waitForScreenshot("HEADLESS-1", timeout: 20, "the ring around the last screen's row") { shot in
            attempts += 1
            if attempts % 8 == 0 {
                _ = try? ChildProcess("wtype", ["-k", "Down"], environment: sway.environment).waitForExit(timeout: 5)
            }
            let around = shot.region(
                x: Int(row.x) - 4, y: Int(row.y) - 4, width: Int(row.width) + 8, height: Int(row.height) + 8)
            guard around.fraction(of: ring) > 0.05 else { return false }
            let panel = shot.region(x: Int(row.x), y: Int(row.y), width: Int(row.width), height: Int(row.height))
            let read = try? ocr(panel, background: panel.pixel(x: 1, y: 1), languages: "eng")
            return read?.contains("HEADLESS-12") == true
        }
        #expect(row.y + row.height <= layout.status.y)
    }
}
