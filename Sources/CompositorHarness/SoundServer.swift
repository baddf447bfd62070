import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PulseAudio server of a test's own, with no sound card: one null sink, whose monitor records whatever played
/// (``record(seconds:)``). A client finds it through ``environment`` (`PULSE_SERVER`), so GStreamer's
/// `autoaudiosink` plays into it as into a real server. The server and its runtime directory go with ``stop()`` or
/// `deinit`.
public final class SoundServer: Sendable {
    /// The samples the sink takes and the monitor records: 48 kHz, one channel, 16 bits.
    public static let rate = 48_000

    private let runtime: RuntimeDirectory
    private let server: ChildProcess
    private let socketPath: String

    /// What a client needs to play into this server.
    public var environment: [String: String] { ["PULSE_SERVER": "unix:\(socketPath)"] }

    /// Starts `pulseaudio` (no daemon, no configuration file, no idle exit) and waits for its socket.
    public init() throws {
        runtime = try RuntimeDirectory(prefix: "pulse", owner: nil)
        socketPath = runtime.path + "/native"
        server = try ChildProcess(
            "/usr/bin/pulseaudio",
            [
                "--daemonize=no", "--use-pid-file=no", "--exit-idle-time=-1", "-n", "--log-target=stderr",
                "--load=module-null-sink sink_name=recorded rate=\(Self.rate) channels=1",
                "--load=module-native-protocol-unix socket=\(socketPath) auth-anonymous=1",
            ],
            // Its cookie, state and runtime files go to the test's own directory, never to the user's.
            environment: ["HOME": runtime.path, "XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": runtime.path])
        do {
            let listening = { [server, socketPath] () throws -> Bool in
                guard server.isRunning else { throw HarnessError("pulseaudio exited", logTail: server.standardError) }
                return FileManager.default.fileExists(atPath: socketPath)
            }
            try waitUntil(timeout: 10, "pulseaudio's socket", logTail: { [server] in server.standardError }, listening)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Ends the server and removes its directory. Safe twice.
    public func stop() {
        server.kill()
        runtime.remove()
    }

    /// Records what plays for `seconds` (from now) through the sink's monitor with `parec`.
    public func record(seconds: Double) throws -> SoundRecording {
        let recorder = try ChildProcess(
            "/usr/bin/parec",
            [
                "--device=recorded.monitor", "--raw", "--format=s16le", "--rate=\(Self.rate)", "--channels=1",
                "--latency-msec=20",
            ],
            environment: environment, standardOutput: .bytes)
        defer { recorder.kill() }
        let bytes = Int(seconds * Double(Self.rate)) * 2
        let recorded = { () throws -> Bool in
            guard recorder.isRunning else { throw HarnessError("parec exited", logTail: recorder.standardError) }
            return recorder.standardOutputBytes.count >= bytes
        }
        try waitUntil(timeout: seconds + 10, "\(seconds) s recorded", logTail: { recorder.standardError }, recorded)
        let raw = recorder.standardOutputBytes.prefix(bytes)
        let samples = stride(from: raw.startIndex, to: raw.endIndex - 1, by: 2).map { index in
            Int16(bitPattern: UInt16(raw[index]) | UInt16(raw[index + 1]) << 8)
        }
        return SoundRecording(samples: samples, rate: Self.rate)
    }
}

/// Samples recorded from a ``SoundServer``, and the two facts a test checks of them.
public struct SoundRecording: Sendable {
    public var samples: [Int16]
    public var rate: Int
    public init(samples: [Int16], rate: Int) {
        self.samples = samples
        self.rate = rate
    }

    /// The root mean square of the samples, in full scale (0: silence; a full-scale sine: 0.71).
    public var loudness: Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }

    /// The frequency of a pure tone, in Hz, from its upward zero crossings (a hair of hysteresis, so that the noise of
    /// silence counts none): good to a few Hz over a second of a sine.
    public var toneFrequency: Double {
        let threshold: Int16 = 300
        var crossings = 0
        var below = true
        for sample in samples {
            if below, sample > threshold {
                crossings += 1
                below = false
            } else if !below, sample < -threshold {
                below = true
            }
        }
        return Double(crossings) * Double(rate) / Double(max(samples.count, 1))
    }
}
