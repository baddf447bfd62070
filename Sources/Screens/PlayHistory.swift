import Foundation
import Glibc

/// The proof-of-play log: every playlist item each screen showed (``PlayRecord``), one JSON object per line in
/// `play-history.jsonl` beside the state file, and the newest ones in memory for `playlist.history`.
///
/// Bounded on disk: when the file would pass ``fileLimit`` it becomes `play-history.jsonl.1` (replacing the one
/// before) and a new file begins, so at most twice the limit is kept, the oldest records going first. A line is
/// appended in one `write` on a file opened with `O_APPEND`: a crash leaves whole lines, at worst a last one cut short,
/// which reading skips. Nothing is fsynced: a record is proof for an operator, not a transaction, and a kiosk that
/// loses power loses at most the lines the kernel had not written yet.
public struct PlayHistory: Sendable {
    public let path: String
    /// The most bytes one file holds before it is rotated.
    public let fileLimit: Int
    /// The newest records, oldest first, at most ``keptInMemory``-many (the most a request may ask for).
    public private(set) var recent: [PlayRecord] = []
    /// Records that could not be written (disk full, read-only): counted in `status`.
    public private(set) var writeFailures = 0
    public static let keptInMemory = 1000

    /// Reads the newest records of the files at `path` (and its `.1`).
    public init(path: String, fileLimit: Int = 1 << 20) {
        self.path = path
        self.fileLimit = fileLimit
        for file in [path + ".1", path] {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            for line in data.split(separator: UInt8(ascii: "\n")) {
                if let record = try? JSONDecoder().decode(PlayRecord.self, from: line) { recent.append(record) }
            }
        }
        recent = Array(recent.suffix(Self.keptInMemory))
    }

    /// `play-history.jsonl` in the state file's directory.
    public static func path(besideState statePath: String) -> String {
        (statePath as NSString).deletingLastPathComponent + "/play-history.jsonl"
    }

    /// Keeps `record` and appends it to the file.
    public mutating func append(_ record: PlayRecord) {
        recent.append(record)
        if recent.count > Self.keptInMemory { recent.removeFirst(recent.count - Self.keptInMemory) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(record) else { return }
        line.append(UInt8(ascii: "\n"))
        if !appendToFile(line) { writeFailures += 1 }
    }

    /// The newest `limit` records (of `screen`, or of every screen), oldest first.
    public func newest(_ limit: Int, screen: String? = nil) -> [PlayRecord] {
        Array(recent.filter { screen == nil || $0.screen == screen }.suffix(limit))
    }

    private func appendToFile(_ line: Data) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) + line.count > fileLimit {
            guard rename(path, path + ".1") == 0 else { return false }
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == line.count
    }
}
