import Foundation
import Glibc

/// The proof-of-play log: every playlist item each screen showed (``PlayRecord``), one JSON object per line in
/// `play-history.jsonl` beside the state file, and the newest ones in memory for `playlist.history`.
///
/// Recording is separate from writing: ``append(_:)`` keeps a record and queues its line, and the owner writes the
/// queued lines (``takeUnwritten()``, ``write(_:to:fileLimit:)`` on a thread of its own, then
/// ``written(_:failure:)``), so that a hung disk holds up only that thread. While a write hangs, at most
/// ``keptInMemory`` more lines wait behind it; older ones are counted as lost, as are the lines of a write that failed
/// (disk full, read-only; a short write counts its whole batch, and leaves a cut line that reading skips): a record is
/// proof for an operator, not a transaction, and is not written twice.
///
/// Bounded on disk: when the file would pass ``fileLimit`` it becomes `play-history.jsonl.1` (replacing the one
/// before) and a new file begins, so at most twice the limit is kept, the oldest records going first. Lines are
/// appended in one `write` on a file opened with `O_APPEND`: a crash leaves whole lines, at worst a last one cut short,
/// which reading skips and the next write puts a line break after. Nothing is fsynced: a kiosk that loses power loses
/// at most the lines the kernel had not written yet.
public struct PlayHistory: Sendable {
    public let path: String
    /// The most bytes one file holds before it is rotated.
    public let fileLimit: Int
    /// The newest records, oldest first: with ``stored``, at most ``keptInMemory``-many (the most a request may ask
    /// for). Those recorded since the start, and those read at the start once a request reached past them.
    private var recent: [PlayRecord] = []
    /// The newest lines of the file read at the start and not decoded yet, oldest first, all older than ``recent``.
    /// Decoding takes about 10 µs a record: a start does not pay 10 ms for records only `playlist.history` reads.
    private var stored: [Data] = []
    /// Lines recorded and not yet handed to a write, oldest first, at most ``keptInMemory``-many.
    private var unwritten: [Data] = []
    /// Lines handed to the write under way (``takeUnwritten()``) that has not ended yet.
    private var writing = 0
    /// Records whose line never reached the file: its write failed, or it was pushed out of ``unwritten`` while a
    /// write hung. Counted in `status`.
    public private(set) var lost = 0
    /// Why the last write failed; nil once one succeeds.
    public private(set) var lastError: String?
    public static let keptInMemory = 1000
    /// What a failed write could not do, as its error says.
    public static let task = "write the play history"

    /// Reads the files at `path` (and its `.1` when `path` holds fewer lines than are kept) and keeps their last
    /// ``keptInMemory`` lines, found from the end, undecoded: decoding every line of a history at its limit (two files
    /// of ``fileLimit``, about 10 000 records at the default) takes a tenth of a second. They are decoded on the
    /// display thread at the first request that reaches past the records made since (about 10 ms, once).
    public init(path: String, fileLimit: Int = 1 << 20) {
        self.path = path
        self.fileLimit = fileLimit
        var newest: [Data] = []  // newest first
        for file in [path, path + ".1"] where newest.count < Self.keptInMemory {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            newest += Self.lastLines(Self.keptInMemory - newest.count, of: data)
        }
        stored = newest.reversed()
    }

    /// The last `count` non-empty lines of `data`, newest first, found from the end: a file near its limit holds
    /// five times as many lines as are kept.
    static func lastLines(_ count: Int, of data: Data) -> [Data] {
        data.withUnsafeBytes { bytes in
            var lines: [Data] = []
            var end = bytes.endIndex
            while lines.count < count && end > bytes.startIndex {
                let newline = bytes[..<end].lastIndex(of: UInt8(ascii: "\n"))
                let start = newline.map { $0 + 1 } ?? bytes.startIndex
                if start < end { lines.append(Data(bytes[start..<end])) }
                end = newline ?? bytes.startIndex
            }
            return lines
        }
    }

    /// `play-history.jsonl` in the state file's directory.
    public static func path(besideState statePath: String) -> String {
        (statePath as NSString).deletingLastPathComponent + "/play-history.jsonl"
    }

    /// Records not in the file yet: waiting for a write, or in the one under way. Counted in `status`.
    public var unwrittenCount: Int { unwritten.count + writing }

    /// Keeps `record` and queues its line for the file.
    public mutating func append(_ record: PlayRecord) {
        recent.append(record)
        let excess = stored.count + recent.count - Self.keptInMemory
        if excess > 0 {
            let fromStored = min(excess, stored.count)
            stored.removeFirst(fromStored)
            recent.removeFirst(excess - fromStored)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(record) else { return }
        line.append(UInt8(ascii: "\n"))
        unwritten.append(line)
        if unwritten.count > Self.keptInMemory {
            lost += unwritten.count - Self.keptInMemory
            unwritten.removeFirst(unwritten.count - Self.keptInMemory)
        }
    }

    /// The newest `limit` records (of `screen`, or of every screen), oldest first. Decodes the lines read at the start
    /// when the records since are not enough (a line cut short by a crash is skipped).
    public mutating func newest(_ limit: Int, screen: String? = nil) -> [PlayRecord] {
        func matching() -> [PlayRecord] { recent.filter { screen == nil || $0.screen == screen } }
        var found = matching()
        if found.count < limit && !stored.isEmpty {
            let decoder = JSONDecoder()
            recent = stored.compactMap { try? decoder.decode(PlayRecord.self, from: $0) } + recent
            stored = []
            found = matching()
        }
        return Array(found.suffix(limit))
    }

    /// The queued lines, joined, and how many they are; nil when none waits. They are the caller's to write now, and
    /// count as unwritten until ``written(_:failure:)``.
    public mutating func takeUnwritten() -> (lines: Data, count: Int)? {
        guard !unwritten.isEmpty else { return nil }
        defer { unwritten.removeAll(keepingCapacity: true) }
        writing += unwritten.count
        return (unwritten.reduce(into: Data()) { $0.append($1) }, unwritten.count)
    }

    /// A write of `count` lines ended, with `failure` or without.
    public mutating func written(_ count: Int, failure: StateStoreError?) {
        writing -= count
        if failure != nil { lost += count }
        lastError = failure?.description
    }

    /// Appends `lines` to the file at `path`, rotating it first when they would take it past `fileLimit`. On any
    /// thread: it takes no history, only where its file is.
    public static func write(_ lines: Data, to path: String, fileLimit: Int) throws(StateStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) + lines.count > fileLimit {
            guard rename(path, path + ".1") == 0 else { throw .posix(path, "rotate", task: Self.task) }
        }
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .posix(path, "open", task: Self.task) }
        defer { close(fd) }
        // A file whose last line a crash cut short gets a line break first, so that the cut line stays alone and
        // the first line written now is read back.
        var lines = lines
        var last: UInt8 = 0
        if fstat(fd, &status) == 0, status.st_size > 0, pread(fd, &last, 1, status.st_size - 1) == 1,
            last != UInt8(ascii: "\n")
        {
            lines.insert(UInt8(ascii: "\n"), at: lines.startIndex)
        }
        let wrote = lines.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard wrote == lines.count else {
            throw wrote < 0
                ? .posix(path, "write", task: Self.task)
                : StateStoreError(path: path, operation: "write", reason: "short", task: Self.task)
        }
    }
}
