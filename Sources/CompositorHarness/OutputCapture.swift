import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The output of a child process as it arrives, shared between the reader thread and the owner.
///
/// The reader thread is the only writer; the owner reads snapshots. Everything sits behind one `Mutex`, which is
/// what makes ``ChildProcess`` `Sendable` under strict concurrency.
final class OutputCapture: Sendable {
    /// One line of output and the stream it came from.
    struct Line {
        var isStandardError: Bool
        var text: String
    }

    struct State {
        /// Complete lines of both streams in arrival order (stdout only in `.lines` mode).
        var lines: [Line] = []
        /// Complete lines ever captured, the ones no longer kept included.
        var linesCaptured = 0
        /// Bytes after the last newline, per stream (0 = stdout, 1 = stderr).
        var partial: [[UInt8]] = [[], []]
        /// Raw stdout in `.bytes` mode.
        var standardOutputBytes: [UInt8] = []
        /// In `.bytes` mode, when each read of stdout arrived (wall clock, seconds since 1970) and how many bytes
        /// had arrived with it: what a recording's samples are timed by.
        var standardOutputArrivals: [(end: Int, at: Double)] = []
        /// Both streams reached end of file (or the reader was told to stop).
        var finished = false
    }

    /// A long-running child (a compositor with debug logging) must not grow without bound: only the newest
    /// `maximumLines` lines are kept.
    let maximumLines: Int

    let state = Mutex(State())
    let keepsStandardOutputBytes: Bool
    let logger: Logger

    init(keepsStandardOutputBytes: Bool, maximumLines: Int, logger: Logger) {
        self.keepsStandardOutputBytes = keepsStandardOutputBytes
        self.maximumLines = maximumLines
        self.logger = logger
    }

    /// Appends bytes read from `stream` (0 stdout, 1 stderr), splitting them into lines.
    func append(_ bytes: ArraySlice<UInt8>, stream: Int) {
        if stream == 0 && keepsStandardOutputBytes {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let at = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            state.withLock { state in
                state.standardOutputBytes.append(contentsOf: bytes)
                state.standardOutputArrivals.append((state.standardOutputBytes.count, at))
            }
            return
        }
        var completed: [String] = []
        state.withLock { state in
            var rest = bytes
            while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
                state.partial[stream].append(contentsOf: rest[..<newline])
                completed.append(String(decoding: state.partial[stream], as: UTF8.self))
                state.partial[stream].removeAll(keepingCapacity: true)
                rest = rest[(newline + 1)...]
            }
            state.partial[stream].append(contentsOf: rest)
            state.lines.append(contentsOf: completed.map { Line(isStandardError: stream == 1, text: $0) })
            state.linesCaptured += completed.count
            if state.lines.count > maximumLines {
                state.lines.removeFirst(state.lines.count - maximumLines)
            }
        }
        for line in completed {
            logger.trace("\(line)")
        }
    }

    /// Marks the end of output: flushes unterminated last lines.
    func finish() {
        state.withLock { state in
            for stream in 0..<2 where !state.partial[stream].isEmpty {
                state.lines.append(
                    Line(isStandardError: stream == 1, text: String(decoding: state.partial[stream], as: UTF8.self)))
                state.partial[stream].removeAll()
            }
            state.finished = true
        }
    }

    /// The captured lines matching `include`, plus unterminated partial lines, joined with newlines.
    func text(_ include: (Line) -> Bool) -> String {
        state.withLock { state in
            var lines = state.lines.filter(include).map(\.text)
            for stream in 0..<2 where !state.partial[stream].isEmpty {
                let line = Line(
                    isStandardError: stream == 1, text: String(decoding: state.partial[stream], as: UTF8.self))
                if include(line) { lines.append(line.text) }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The complete lines captured after the first `count` ever captured, joined with newlines (those of them still
    /// kept: a caller that reads often enough gets them all).
    func completeLines(after count: Int) -> String {
        state.withLock { state in
            let dropped = state.linesCaptured - state.lines.count
            return state.lines[max(0, count - dropped)...].map(\.text).joined(separator: "\n")
        }
    }

    /// How many complete lines have been captured so far.
    var linesCaptured: Int { state.withLock { $0.linesCaptured } }

    /// The first line (complete or partial) containing `needle`, and whether output has ended.
    func firstLine(containing needle: String) -> (line: String?, finished: Bool) {
        state.withLock { state in
            if let line = state.lines.first(where: { $0.text.contains(needle) }) { return (line.text, state.finished) }
            for stream in 0..<2 {
                let text = String(decoding: state.partial[stream], as: UTF8.self)
                if text.contains(needle) { return (text, state.finished) }
            }
            return (nil, state.finished)
        }
    }

    /// Reads `standardOutput` and `standardError` until both reach end of file, or until `wakeup` becomes readable,
    /// after which it only takes what is immediately available. Closes the two descriptors it was given.
    ///
    /// Runs on its own thread: a child that fills a pipe nobody reads blocks forever, so reading must not depend on
    /// the owner calling anything.
    func readUntilEndOfFile(standardOutput: Int32, standardError: Int32, wakeup: Int32) {
        var fds = [
            pollfd(fd: standardOutput, events: Int16(POLLIN), revents: 0),
            pollfd(fd: standardError, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
        ]
        var openStreams = 2
        var draining = false
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while openStreams > 0 {
            let ready = poll(&fds, nfds_t(fds.count), draining ? 0 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 { break }  // draining and nothing left right now
            for stream in 0..<2 where fds[stream].fd >= 0 && fds[stream].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[stream].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    append(buffer[..<count], stream: stream)
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(fds[stream].fd)
                    fds[stream].fd = -1
                    openStreams -= 1
                }
            }
            if fds[2].fd >= 0 && fds[2].revents != 0 {
                draining = true
                fds[2].fd = -1  // poll ignores negative descriptors
            }
        }
        for stream in 0..<2 where fds[stream].fd >= 0 {
            close(fds[stream].fd)
        }
        finish()
    }
}

/// A pipe whose two ends close when the last user lets go.
///
/// Used to wake the reader thread: both the reader and the owner hold it, so a write can never hit a closed read
/// end (no `SIGPIPE`, no `EBADF` on a reused descriptor number).
final class WakeupPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        let (readEnd, writeEnd) = try makePipe()
        self.readEnd = readEnd
        self.writeEnd = writeEnd
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}

/// A close-on-exec pipe, so that no other child we spawn inherits it and keeps it open (which would delay EOF).
func makePipe() throws -> (readEnd: Int32, writeEnd: Int32) {
    var fds: [Int32] = [-1, -1]
    let result: Int32 =
        if let pipe2 = GNUExtensions.pipe2 {
            pipe2(&fds, O_CLOEXEC)
        } else {
            // Not atomic with respect to a concurrent fork, but children we spawn close inherited descriptors anyway.
            pipe(&fds) == 0 && fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0
                ? 0 : -1
        }
    guard result == 0 else {
        throw HarnessError("pipe2 failed: \(String(cString: strerror(errno)))")
    }
    return (fds[0], fds[1])
}
