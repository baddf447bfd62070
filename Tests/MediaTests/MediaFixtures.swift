import CompositorHarness
import Foundation
import Synchronization

/// Media made by the tests themselves with the real tools (ImageMagick's `convert`, `ffmpeg`), never downloaded.
/// A missing tool fails the test that needs it (scripts/dependencies test installs them all).
enum MediaFixtures {
    /// One directory for the whole run; each file is made once, by the first test that asks for it.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiscreen-media-tests-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// One entry per file name, each with its own lock: a file made from another (the truncated JPEG from the
    /// whole one) takes the other's lock inside its own, and a slow file (the 50-megapixel JPEG) holds up no other.
    private final class Entry: Sendable {
        let result = Mutex<Result<String, FixtureError>?>(nil)
    }
    private static let entries = Mutex<[String: Entry]>([:])

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of `name` in the fixture directory, made by `make` (given that path) the first time.
    static func file(_ name: String, make: (String) throws -> Void) throws -> String {
        let path = directory.appendingPathComponent(name).path
        let entry = entries.withLock { entries in
            if let entry = entries[name] { return entry }
            let entry = Entry()
            entries[name] = entry
            return entry
        }
        return try entry.result.withLock { result -> Result<String, FixtureError> in
            if let result { return result }
            do {
                try make(path)
                result = .success(path)
            } catch {
                result = .failure(FixtureError(description: "making \(name): \(error)"))
            }
            return result!
        }.get()
    }

    /// Runs a tool by its Debian path (not whatever `PATH` finds first) and fails unless it exits 0 within two
    /// minutes, through the harness's `ChildProcess` (its own process group, reaped, its output kept for the message).
    static func run(_ tool: String, _ arguments: [String]) throws {
        let child = try ChildProcess(tool, arguments)
        let status = try child.waitForExit(timeout: 120)
        guard status == 0 else {
            throw FixtureError(
                description: "\(tool) \(arguments.joined(separator: " ")) exited \(status): \(child.standardError)")
        }
    }

    static func convert(_ arguments: [String]) throws { try run("/usr/bin/convert", arguments) }

    static func ffmpeg(_ arguments: [String]) throws {
        try run("/usr/bin/ffmpeg", ["-loglevel", "error", "-nostdin", "-y"] + arguments)
    }

    // MARK: Images

    static func redPNG() throws -> String {
        try file("red.png") { try convert(["-size", "640x360", "xc:red", $0]) }
    }

    /// 200×100 stored (red at the top, blue at the bottom), tagged "rotate 90° clockwise to view" (EXIF
    /// orientation 6): shown 100×200. The EXIF segment is written by hand after SOI: ImageMagick 6's `-orient`
    /// writes no EXIF into a JPEG that had none.
    static func rotatedJPEG() throws -> String {
        try file("rotated.jpg") { path in
            try convert(["-size", "200x100", "gradient:red-blue", path + ".plain.jpg"])
            let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".plain.jpg")))
            // TIFF, little-endian: header, IFD0 at 8 with one entry (Orientation, SHORT, 1, 6), no next IFD.
            let tiff: [UInt8] =
                [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00]
                + [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00] + [0, 0, 0, 0]
            let payload = Array("Exif".utf8) + [0, 0] + tiff
            let length = payload.count + 2
            let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
            try Data(Array(plain[..<2]) + app1 + Array(plain[2...])).write(to: URL(fileURLWithPath: path))
        }
    }

    static func gradientJPEG() throws -> String {
        try file("gradient.jpg") { try convert(["-size", "640x360", "gradient:red-blue", $0]) }
    }

    /// The first half of ``gradientJPEG()``.
    static func truncatedJPEG() throws -> String {
        try file("truncated.jpg") { path in
            let whole = try Data(contentsOf: URL(fileURLWithPath: gradientJPEG()))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        }
    }

    static func truncatedPNG() throws -> String {
        try file("truncated.png") { path in
            try convert(["-size", "640x360", "plasma:", path + ".whole.png"])
            let whole = try Data(contentsOf: URL(fileURLWithPath: path + ".whole.png"))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        }
    }

    /// A valid PNG of a few dozen bytes whose IHDR claims 100 000 × 100 000 RGB pixels (30 GB decoded).
    static func bombPNG() throws -> String {
        try file("bomb.png") { path in
            var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            func chunk(_ type: String, _ data: [UInt8]) {
                let body = Array(type.utf8) + data
                png += bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
            }
            chunk("IHDR", bigEndian(100_000) + bigEndian(100_000) + [8, 2, 0, 0, 0])
            // A zlib stream of one stored empty block: valid, tiny, and far short of the claimed rows.
            chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01])
            chunk("IEND", [])
            try Data(png).write(to: URL(fileURLWithPath: path))
        }
    }

    static func animatedGIF() throws -> String {
        try file("animated.gif") { path in
            try convert(["-size", "64x48", "xc:red", path + ".a.png"])
            try convert(["-size", "64x48", "xc:blue", path + ".b.png"])
            try convert(["-delay", "10", "-loop", "0", path + ".a.png", path + ".b.png", path])
        }
    }

    static func animatedWebP() throws -> String {
        try file("animated.webp") { path in
            try convert(["-size", "64x48", "xc:red", path + ".a.png"])
            try convert(["-size", "64x48", "xc:blue", path + ".b.png"])
            try convert(["-delay", "20", "-loop", "0", path + ".a.png", path + ".b.png", "-quality", "100", path])
        }
    }

    static func redWebP() throws -> String {
        try file("red.webp") { path in
            try convert(["-size", "64x48", "xc:red", "-quality", "100", "-define", "webp:lossless=true", path])
        }
    }

    /// A 100×50 red rectangle, by hand.
    static func redSVG() throws -> String {
        try file("red.svg") { path in
            let svg = """
                <?xml version="1.0" encoding="UTF-8"?>
                <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">
                  <rect width="100" height="50" fill="#ff0000"/>
                </svg>
                """
            try svg.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// 20×10, red at half opacity everywhere.
    static func translucentPNG() throws -> String {
        try file("translucent.png") { try convert(["-size", "20x10", "xc:rgba(255,0,0,0.5)", "PNG32:" + $0]) }
    }

    /// 8000 × 6250 = 50 megapixels (a few seconds to make).
    static func fiftyMegapixelJPEG() throws -> String {
        try file("big.jpg") { try convert(["-size", "8000x6250", "gradient:red-blue", $0]) }
    }

    static func emptyFile() throws -> String {
        try file("empty.png") { _ = FileManager.default.createFile(atPath: $0, contents: Data()) }
    }

    static func textFile() throws -> String {
        try file("notes.txt") { try "not a picture\n".write(toFile: $0, atomically: true, encoding: .utf8) }
    }

    static func subdirectory() throws -> String {
        try file("folder.png") {
            try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: true)
        }
    }

    // MARK: Video

    /// `seconds` of ffmpeg's test pattern, 320×240 at 30 frames per second, H.264 in MP4.
    static func h264(seconds: Int) throws -> String {
        try file("testsrc-\(seconds)s.mp4") { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-t", "\(seconds)", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", path,
            ])
        }
    }

    /// ``h264(seconds:)`` with a sound: a sine of `frequency` Hz in AAC, as loud as a test tone should be.
    static func h264WithTone(seconds: Int, frequency: Int) throws -> String {
        try file("testsrc-\(seconds)s-\(frequency)hz.mp4") { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=\(frequency):sample_rate=48000", "-t", "\(seconds)", "-c:v", "libx264", "-pix_fmt",
                "yuv420p", "-c:a", "aac", "-shortest", path,
            ])
        }
    }

    static func vp9() throws -> String {
        try file("testsrc.webm") { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-t", "1", "-c:v", "libvpx-vp9", "-b:v", "300k",
                "-deadline", "realtime", path,
            ])
        }
    }

    /// ``h264(seconds:)`` of 2 s whose `moov` box (ffmpeg writes it last) is zeroed after its header: no track.
    static func brokenMoov() throws -> String {
        try file("broken-moov.mp4") { path in
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: h264(seconds: 2))))
            let moov = Array("moov".utf8)
            guard let at = (4..<bytes.count - 4).first(where: { Array(bytes[$0..<$0 + 4]) == moov }) else {
                throw FixtureError(description: "no moov box in the MP4")
            }
            for index in at + 4..<bytes.count { bytes[index] = 0 }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    // MARK: Helpers

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// PNG's CRC-32 (ISO 3309, the zlib one), bit by bit: a few dozen bytes.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
