import CompositorHarness
import Foundation

/// Media the tests make themselves (never downloaded): pictures by ImageMagick, videos by ffmpeg, and hand-made
/// hostile files.
enum MediaFixtures {
    /// A fresh temporary directory for one test's files.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ms-media-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs ImageMagick's `convert` (Debian's `imagemagick`, which `scripts/dependencies test` installs).
    static func convert(_ arguments: [String]) throws {
        try run("/usr/bin/convert", arguments)
    }

    /// A 64×48 PNG of each ImageMagick colour in `colours`, named after it, in `directory`: their paths, in order.
    static func pictures(_ colours: [String], in directory: String) throws -> [String] {
        try colours.map { colour in
            let path = directory + "/\(colour).png"
            try convert(["-size", "64x48", "xc:\(colour)", path])
            return path
        }
    }

    /// Runs ffmpeg quietly.
    static func ffmpeg(_ arguments: [String]) throws {
        try run("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
    }

    /// `file` after ImageMagick's `operations`, as a screenshot to compare a screen with.
    static func convertToScreenshot(_ file: String, _ operations: [String]) throws -> Screenshot {
        let output = try FileManager.default.temporaryDirectory.appendingPathComponent("ms-\(UUID().uuidString).ppm")
            .path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try convert([file] + operations + ["-depth", "8", "ppm:" + output])
        return try Screenshot(contentsOfFile: output)
    }

    /// Writes a PNG whose header claims `width`×`height` pixels and whose data is a few bytes, to `path`: a
    /// decompression bomb's opening, which must be refused before anything of that size is allocated. Python's zlib
    /// computes the chunks' CRCs.
    static func writePNG(claiming width: Int, _ height: Int, to path: String) throws {
        let script = """
            import struct, sys, zlib
            def chunk(kind, body):
                return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
            header = struct.pack(">IIBBBBB", \(width), \(height), 8, 2, 0, 0, 0)
            data = zlib.compress(bytes(64))
            open(sys.argv[1], "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
            """
        try run("/usr/bin/python3", ["-c", script, path])
    }

    /// Copies the JPEG at `source` to `destination` with an EXIF segment whose Orientation tag is `orientation` (6:
    /// "turn a quarter clockwise to view"), the pixels untouched. ImageMagick 6 does not write the tag; a camera
    /// does, as this APP1 segment right after the start-of-image marker.
    static func writeJPEG(_ source: String, orientation: Int, to destination: String) throws {
        let script = """
            import struct, sys
            data = open(sys.argv[1], "rb").read()
            tiff = b"MM\\x00\\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
            tiff += struct.pack(">HHIHH", 0x0112, 3, 1, int(sys.argv[3]), 0) + struct.pack(">I", 0)
            body = b"Exif\\x00\\x00" + tiff
            app1 = b"\\xff\\xe1" + struct.pack(">H", len(body) + 2) + body
            open(sys.argv[2], "wb").write(data[:2] + app1 + data[2:])
            """
        try run("/usr/bin/python3", ["-c", script, source, destination, "\(orientation)"])
    }

    /// A process's resident memory, KiB.
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw HarnessError("\(tool) is missing: scripts/dependencies test installs it")
        }
        let child = try ChildProcess(tool, arguments)
        let status = try child.waitForExit(timeout: 120)
        guard status == 0 else { throw HarnessError("\(tool) \(arguments) exited \(status): \(child.output)") }
    }
}
