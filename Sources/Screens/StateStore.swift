import Foundation
import Glibc

/// Reads and writes the state file, `$XDG_STATE_HOME/multiscreen/state.json` by default.
///
/// Saving is atomic so that a power cut on an unattended kiosk leaves either the old state or the new one, never a
/// half-written file: the JSON goes to a temporary file in the same directory (so that `rename` stays within one
/// file system), which is `fsync`ed, then renamed over the old file, and the directory is `fsync`ed so the rename
/// itself is durable. Loading never crashes and never silently loses a file: one that cannot be read or is not a
/// version-1 Multiscreen state is renamed to `state.json.corrupt-<UTC time>` and reported, and a fresh state is
/// used.
public struct StateStore: Sendable {
    /// What ``load(now:)`` found.
    public struct Loaded: Equatable, Sendable {
        public var state: PersistentState
        /// A sentence for the log when the file was set aside (or could not be); nil when all went well.
        public var warning: String?
        /// Where the bad file now is, if it was set aside.
        public var setAsidePath: String?
    }

    public let path: String
    /// Test seam: runs after the temporary file is written and synced, before the rename.
    var beforeRename: (@Sendable (_ temporaryPath: String) throws -> Void)?

    public init(path: String = StateStore.defaultPath()) {
        self.path = path
    }

    /// `$XDG_STATE_HOME/multiscreen/state.json`, else `~/.local/state/multiscreen/state.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGPath.base(environment, variable: "XDG_STATE_HOME", fallback: ".local/state") + "/multiscreen/state.json"
    }

    /// The saved state; a fresh one when there is none yet, or when the file was bad (then set aside, see
    /// ``Loaded/warning``).
    public func load(now: Date = Date()) -> Loaded {
        removeLeftoverTemporaryFiles()
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return Loaded(state: PersistentState()) }
            return setAside(reason: "cannot be read (\((error as NSError).localizedDescription))", now: now)
        }
        switch Self.decode(data) {
        case .success(let state): return Loaded(state: state)
        case .failure(let problem): return setAside(reason: problem.reason, now: now)
        }
    }

    /// Writes `state` atomically, creating the directory (mode 0700) when needed. The file is mode 0600: it holds
    /// the messages people sent.
    public func save(_ state: PersistentState) throws(StateStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        try Self.makeDirectory(directory.isEmpty ? "." : directory)
        var data: Data
        do {
            data = try Self.encoder.encode(state)
        } catch {
            throw StateStoreError(path: path, operation: "encode", reason: "\(error)")
        }
        data.append(0x0A)
        let base = (path as NSString).lastPathComponent
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try Self.writeSynced(data, to: temporary)
            try beforeRename?(temporary)
            guard rename(temporary, path) == 0 else { throw StateStoreError.posix(path, "rename") }
        } catch {
            unlink(temporary)
            if let error = error as? StateStoreError { throw error }
            throw StateStoreError(path: path, operation: "write", reason: "\(error)")
        }
        // The rename is done; syncing the directory makes it survive a power cut. Failing that is not fatal.
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    // MARK: - Reading

    private struct Problem: Error {
        var reason: String
    }

    private struct VersionProbe: Decodable {
        var version: Int?
    }

    private static func decode(_ data: Data) -> Result<PersistentState, Problem> {
        guard (try? JSONSerialization.jsonObject(with: data)) != nil else {
            return .failure(Problem(reason: "is not valid JSON"))
        }
        guard let probe = try? decoder.decode(VersionProbe.self, from: data), let version = probe.version else {
            return .failure(Problem(reason: "is not a Multiscreen state file (no \"version\")"))
        }
        guard version == PersistentState.currentVersion else {
            return .failure(
                Problem(reason: "has version \(version), this Multiscreen reads \(PersistentState.currentVersion)"))
        }
        let state: PersistentState
        do {
            state = try decoder.decode(PersistentState.self, from: data)
        } catch let error as DecodingError {
            return .failure(Problem(reason: "is damaged: \(describe(error))"))
        } catch {
            return .failure(Problem(reason: "is damaged: \(error)"))
        }
        if let bad = state.roles.values.first(where: { ScreenRole.validated($0.rawValue) == nil }) {
            return .failure(Problem(reason: "is damaged: invalid role name \"\(bad.rawValue)\""))
        }
        for (screen, url) in (state.pages ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let problem = WebAddress.problem(url) {
                return .failure(
                    Problem(
                        reason: "is damaged: the page of \(String(reflecting: String(screen.prefix(64)))): \(problem)"))
            }
        }
        return .success(state)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context))"
        @unknown default: return "\(error)"
        }
    }

    /// A power cut between writing the temporary file and renaming it leaves the temporary file behind (the state
    /// file itself is still the previous good one): remove such leftovers, of any process.
    private func removeLeftoverTemporaryFiles() {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = ".\((path as NSString).lastPathComponent).tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)
        else { return }
        for name in names where name.hasPrefix(prefix) {
            unlink((directory.isEmpty ? "" : directory + "/") + name)
        }
    }

    private func setAside(reason: String, now: Date) -> Loaded {
        let base = path + ".corrupt-" + Self.utcStamp(now)
        var target = base
        var counter = 1
        while FileManager.default.fileExists(atPath: target) {
            counter += 1
            target = "\(base)-\(counter)"
        }
        guard rename(path, target) == 0 else {
            let error = String(cString: strerror(errno))
            return Loaded(
                state: PersistentState(),
                warning: "state file \(path) \(reason); could not set it aside (\(error)): starting with a fresh "
                    + "state, and the next save will replace it")
        }
        return Loaded(
            state: PersistentState(),
            warning: "state file \(path) \(reason); moved it to \(target) and started with a fresh state",
            setAsidePath: target)
    }

    /// "20261120T140327Z"
    static func utcStamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    // MARK: - Writing

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Creates `directory` and any missing parents, each with mode 0700 (the XDG spec's mode for these).
    private static func makeDirectory(_ directory: String) throws(StateStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw StateStoreError(path: directory, operation: "mkdir", reason: "exists and is not a directory")
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory { try makeDirectory(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw StateStoreError.posix(directory, "mkdir") }
    }

    private static func writeSynced(_ data: Data, to temporary: String) throws(StateStoreError) {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateStoreError.posix(temporary, "open") }
        defer { close(fd) }
        let failure: StateStoreError? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return StateStoreError.posix(temporary, "write")
                }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
        guard fsync(fd) == 0 else { throw StateStoreError.posix(temporary, "fsync") }
    }
}

/// Saving the state failed: the caller logs it and keeps running (the old file, if any, is intact).
public struct StateStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What could not be done, for the message: "save state", "write the play history".
    public var task: String
    public var path: String
    /// The step that failed: mkdir, open, write, fsync, rename, rotate, encode.
    public var operation: String
    public var reason: String

    public init(path: String, operation: String, reason: String, task: String = "save state") {
        self.task = task
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    static func posix(_ path: String, _ operation: String, task: String = "save state") -> StateStoreError {
        StateStoreError(path: path, operation: operation, reason: String(cString: strerror(errno)), task: task)
    }

    public var description: String { "cannot \(task): \(operation) \(path): \(reason)" }
}
