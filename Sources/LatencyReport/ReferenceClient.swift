import Messaging

/// weston's `weston-presentation-shm`, the reference client: one window whose every frame prints its commit →
/// present (`c2p`, whole ms) and present → present (`p2p`, µs) from `wp_presentation` feedback. Run in the same
/// compositor session, its `c2p` is the compositor's own floor for commit → presented, which Multiscreen's is
/// compared with.
public struct ReferenceRun: Equatable, Sendable {
    /// `-p` (low-latency presentation: commit as soon as the previous frame is presented) or `-f` (feedback: paced
    /// by frame callbacks, like Multiscreen's `frame` pacing).
    public var mode: String
    /// Per frame, ns.
    public var commitToPresent: [UInt64]
    public var presentToPresent: [UInt64]

    public init(mode: String, commitToPresent: [UInt64], presentToPresent: [UInt64]) {
        self.mode = mode
        self.commitToPresent = commitToPresent
        self.presentToPresent = presentToPresent
    }

    /// Parses its output: lines such as `    12: c2p   26 ms, p2p 25848 us, t2p  25775 us, [____] seq 0`
    /// (`-p`) or `    12: f2c 10 ms, c2p 41 ms, f2p 51 ms, p2p 25558 us, …` (`-f`). The first frame is left out:
    /// it has no previous presentation (`p2p 0`) and carries the client's start-up.
    public static func parse(mode: String, output: String) -> ReferenceRun {
        var c2p: [UInt64] = []
        var p2p: [UInt64] = []
        for line in output.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "," })
            guard let first = fields.first, first.hasSuffix(":"), let frame = Int(first.dropLast()), frame > 1,
                let c = value(after: "c2p", unit: "ms", in: fields), let p = value(after: "p2p", unit: "us", in: fields)
            else { continue }
            c2p.append(c * 1_000_000)
            p2p.append(p * 1_000)
        }
        return ReferenceRun(mode: mode, commitToPresent: c2p, presentToPresent: p2p)
    }

    private static func value(after key: String, unit: String, in fields: [Substring]) -> UInt64? {
        guard let index = fields.firstIndex(of: Substring(key)), index + 2 < fields.count,
            fields[index + 2] == Substring(unit)
        else { return nil }
        return UInt64(fields[index + 1])
    }

    public var json: JSONValue {
        .object([
            "mode": .string(mode), "frames": .integer(commitToPresent.count),
            "commitToPresentMs": Distribution(commitToPresent)?.json ?? .null,
            "presentToPresentMs": Distribution(presentToPresent)?.json ?? .null,
        ])
    }
}
