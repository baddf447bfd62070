import CompositorHarness
import Foundation
import Outputs
import Testing

/// GStreamer, GdkPixbuf, libmosquitto, libsystemd and WPE WebKit are not linked: each is loaded when its content,
/// link, service manager or page is first used, so a kiosk that uses none of them never loads them (issue 28: nothing
/// the configuration does not use is loaded before the first frames). `ServiceManagerTests` sees libsystemd loaded
/// under a service manager, `WebEngineLoadingTests` WPE WebKit with the first page. The trampolines that stand for
/// their functions keep the libraries' names, hidden: no library binds its own calls to them.
@Suite(.serialized) struct OnDemandLibrariesTests {
    static let libraries = [
        "libgstreamer-1.0.so", "libgdk_pixbuf-2.0.so", "libmosquitto.so", "libsystemd.so", "libWPEWebKit-1.1.so",
    ]

    /// Which of ``libraries`` are mapped into the process.
    static func loaded(_ app: MultiscreenProcess) -> Set<String> {
        let maps = app.process.memoryMaps
        return Set(libraries.filter { maps.contains($0) })
    }

    @Test func theLibrariesAreNotLinkedAndTheTrampolinesNotExported() throws {
        let readelf = try ChildProcess("/usr/bin/readelf", ["--dynamic", MultiscreenProcess.binary])
        #expect(try readelf.waitForExit(timeout: 60) == 0)
        let needed = readelf.standardOutput.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty, "\(readelf.standardOutput.prefix(500))")
        for library in Self.libraries {
            #expect(!needed.contains { $0.contains(library) }, "\(library) is linked: \(needed)")
        }
        let nm = try ChildProcess("/usr/bin/nm", ["--dynamic", "--defined-only", MultiscreenProcess.binary])
        #expect(try nm.waitForExit(timeout: 60) == 0)
        let exported = nm.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").last }
        let trampolines = exported.filter { name in
            ["gst_", "gdk_pixbuf_", "mosquitto_", "sd_", "webkit_", "wpe_", "jsc_", "wl_shm_buffer_"].contains {
                name.hasPrefix($0)
            }
        }
        #expect(trampolines.isEmpty, "exported under a library's name: \(trampolines.prefix(5))")
    }

    @Test func eachLibraryIsLoadedAtItsFirstUse() throws {
        let directory = try MediaFixtures.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = directory + "/red.jpg"
        try MediaFixtures.convert(["-size", "64x48", "xc:red", image])
        let video = try MediaVideoTests.makeVideo(in: directory, seconds: 1)
        let sway = try HeadlessSway(outputs: 2, width: 320, height: 240)
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForScreens(2)
        #expect(Self.loaded(app).isEmpty, "loaded before any use")

        #expect(try app.command(["media", "show", "--screen", "HEADLESS-2", image]).status == 0)
        try waitUntil(timeout: 15, "GdkPixbuf loaded for the image") {
            Self.loaded(app).contains("libgdk_pixbuf-2.0.so")
        }
        try sway.waitForScreenshot("HEADLESS-2", "the red image") {
            $0.fraction(of: RGBColor(hex: 0xFF_00_00), tolerance: 8) > 0.5
        }
        #expect(!Self.loaded(app).contains("libgstreamer-1.0.so"), "an image needs no GStreamer")

        #expect(try app.command(["media", "show", "--screen", "HEADLESS-2", "--loop", video]).status == 0)
        try waitUntil(timeout: 15, "GStreamer loaded for the video") {
            Self.loaded(app).contains("libgstreamer-1.0.so")
        }
        // Playing: the picture replaced the image, then moves on.
        let first = try sway.waitForScreenshot("HEADLESS-2", "the video") {
            $0.fraction(of: RGBColor(hex: 0xFF_00_00), tolerance: 8) < 0.5
        }
        try sway.waitForScreenshot("HEADLESS-2", "a later frame of the video") {
            $0.fraction(differingFrom: first) > 0.01
        }
        let media = try MediaVideoTests.media(app, "HEADLESS-2")
        #expect(media["state"] as? String == "playing", "\(media)")
        #expect(!Self.loaded(app).contains("libmosquitto.so"), "no fleet link configured")
        #expect(app.process.isRunning)
    }

    @Test func theFleetLinkLoadsLibmosquitto() throws {
        let broker = try MosquittoBroker()
        let sway = try HeadlessSway(outputs: 1, width: 320, height: 180)
        let app = try MultiscreenProcess(environment: sway.environment, arguments: ["run", "--fleet", broker.url])
        try app.waitForLog("fleet link connected")
        #expect(Self.loaded(app) == ["libmosquitto.so"], "only the fleet link's library")
    }
}
