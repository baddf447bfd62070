import Foundation

/// Reads the `WAYLAND_DEBUG=1` log libwayland writes to stderr, the one timeline every Wayland client shares.
///
/// Each line starts with `[ms.µs]`: libwayland's `wl_closure_print` takes `CLOCK_REALTIME` in microseconds,
/// truncated to 32 bits (so it wraps every ~71.6 minutes), and prints it as milliseconds. Measuring our client
/// and a reference client (weston-simple-egl) from the same log format keeps the comparison fair: both pay the
/// same logging cost and are timed by the same clock.
public struct WaylandDebugTrace: Sendable {
    public struct Line: Sendable, Equatable {
        /// Microseconds of CLOCK_REALTIME modulo 2^32.
        public var time: UInt32
        /// A request (`->`) rather than an event.
        public var isRequest: Bool
        /// "wl_surface@10"
        public var object: String
        /// "commit"
        public var message: String
        public var arguments: String
    }

    public private(set) var lines: [Line] = []

    public init(text: String) {
        for raw in text.split(separator: "\n") { if let line = Self.parse(raw) { lines.append(line) } }
    }

    /// The trace clock now: take it just before spawning a client to time from exec.
    public static func now() -> UInt32 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let micros = UInt64(ts.tv_sec) &* 1_000_000 &+ UInt64(ts.tv_nsec / 1000)
        return UInt32(truncatingIfNeeded: micros)
    }

    /// Milliseconds from `start` to `end`, across the 32-bit wrap.
    public static func milliseconds(from start: UInt32, to end: UInt32) -> Double {
        Double(end &- start) / 1000
    }

    static func parse(_ raw: Substring) -> Line? {
        // "[3755227.771]  -> wl_surface@10.commit()"  or  "[3756160.768] wl_output@11.done()"
        guard raw.first == "[", let close = raw.firstIndex(of: "]") else { return nil }
        // "%7u.%03u": the milliseconds are space-padded.
        let stamp = raw[raw.index(after: raw.startIndex)..<close].split(separator: ".")
        guard stamp.count == 2, let ms = UInt64(stamp[0].drop { $0 == " " }), let us = UInt64(stamp[1]) else {
            return nil
        }
        var rest = raw[raw.index(after: close)...].drop { $0 == " " }
        let isRequest = rest.hasPrefix("->")
        if isRequest { rest = rest.dropFirst(2).drop { $0 == " " } }
        guard let paren = rest.firstIndex(of: "("), let dot = rest[..<paren].lastIndex(of: ".") else { return nil }
        let arguments = rest[rest.index(after: paren)...].dropLast(rest.hasSuffix(")") ? 1 : 0)
        return Line(
            time: UInt32(truncatingIfNeeded: ms * 1000 + us), isRequest: isRequest, object: String(rest[..<dot]),
            message: String(rest[rest.index(after: dot)..<paren]), arguments: String(arguments))
    }

    /// For every surface that committed a buffer: the time of its first commit after an attach of a real buffer.
    public var firstBufferCommits: [(surface: String, time: UInt32)] {
        var attached: Set<String> = []
        var done: Set<String> = []
        var result: [(String, UInt32)] = []
        for line in lines where line.isRequest && line.object.hasPrefix("wl_surface@") {
            if line.message == "attach" && !line.arguments.hasPrefix("nil") {
                attached.insert(line.object)
            } else if line.message == "commit" && attached.contains(line.object) && !done.contains(line.object) {
                done.insert(line.object)
                result.append((line.object, line.time))
            }
        }
        return result
    }

    /// The proxy ids of `wl_output`s bound, in order: "wl_output@11".
    public var boundOutputs: [String] {
        lines.compactMap { line in
            guard line.isRequest, line.message == "bind", line.arguments.contains("\"wl_output\""),
                let at = line.arguments.range(of: "@", options: .backwards)
            else { return nil }
            return "wl_output@" + line.arguments[at.upperBound...].prefix { $0.isNumber }
        }
    }

    /// Time of the first `done` event of `output` ("wl_output@11").
    public func firstDone(of output: String) -> UInt32? {
        lines.first { !$0.isRequest && $0.object == output && $0.message == "done" }?.time
    }
}

extension WaylandDebugTrace {
    /// Surfaces created in this trace ("wl_surface@14"), from `wl_compositor.create_surface`.
    public var createdSurfaces: [String] {
        lines.compactMap { line in
            guard line.isRequest, line.message == "create_surface",
                let at = line.arguments.range(of: "wl_surface@")
            else { return nil }
            return "wl_surface@" + line.arguments[at.upperBound...].prefix { $0.isNumber }
        }
    }

    /// Time of `surface`'s first commit after a buffer was attached.
    public func firstBufferCommit(of surface: String) -> UInt32? {
        var attached = false
        for line in lines where line.isRequest && line.object == surface {
            if line.message == "attach" && !line.arguments.hasPrefix("nil") { attached = true }
            if line.message == "commit" && attached { return line.time }
        }
        return nil
    }

    /// Time of the request that created `surface` ("wl_surface@14").
    public func creation(of surface: String) -> UInt32? {
        lines.first { line in
            line.isRequest && line.message == "create_surface" && line.arguments.hasSuffix(surface)
        }?.time
    }

    /// Time of the first `xdg_surface.configure` of the role object made for `surface`: the compositor's answer
    /// to its first commit, which the client must have before it may attach a buffer.
    public func firstConfigure(of surface: String) -> UInt32? {
        guard
            let index = lines.firstIndex(where: { line in
                line.isRequest && line.message == "get_xdg_surface" && line.arguments.hasSuffix(surface)
            }), let at = lines[index].arguments.range(of: "xdg_surface@")
        else { return nil }
        let xdgSurface = "xdg_surface@" + lines[index].arguments[at.upperBound...].prefix { $0.isNumber }
        // After the request only: an id is reused once its object is gone.
        return lines[index...].first { !$0.isRequest && $0.object == xdgSurface && $0.message == "configure" }?.time
    }

    /// Number of `wl_buffer`s created from shm pools (Mesa's software path allocates its swap chain this way).
    public var shmBuffersCreated: Int {
        lines.filter { $0.isRequest && $0.object.hasPrefix("wl_shm_pool@") && $0.message == "create_buffer" }.count
    }
}
