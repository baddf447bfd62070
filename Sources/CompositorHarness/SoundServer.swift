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

    /// Starts recording what plays through the sink's monitor, and returns once samples come: PulseAudio's monitor
    /// takes a second or more to deliver its first, and whatever plays before then would be heard late or not at all.
    public func startRecording() throws -> SoundRecorder { try SoundRecorder(environment: environment) }

    /// Records what plays for `seconds` from now.
    public func record(seconds: Double) throws -> SoundRecording {
        let recorder = try startRecording()
        return try recorder.stop(after: seconds)
    }
}

/// `parec` recording a ``SoundServer``'s monitor, its samples timed on the wall clock as they arrive (every 20 ms).
public final class SoundRecorder: Sendable {
    private let recorder: ChildProcess

    fileprivate init(environment: [String: String]) throws {
        recorder = try ChildProcess(
            "/usr/bin/parec",
            [
                "--device=recorded.monitor", "--raw", "--format=s16le", "--rate=\(SoundServer.rate)", "--channels=1",
                "--latency-msec=20",
            ],
            environment: environment, standardOutput: .bytes)
        try waitForSamples(count: 1, timeout: 10)
    }

    deinit { recorder.kill() }

    private func waitForSamples(count: Int, timeout: Double) throws {
        let recorded = { [recorder] () throws -> Bool in
            guard recorder.isRunning else { throw HarnessError("parec exited", logTail: recorder.standardError) }
            return recorder.timedStandardOutput.arrivals.last.map { $0.end >= count * 2 } ?? false
        }
        try waitUntil(
            timeout: timeout, "\(count) samples recorded", logTail: { [recorder] in recorder.standardError }, recorded)
    }

    /// Stops once `seconds` more have been recorded, and returns everything recorded since the start.
    public func stop(after seconds: Double) throws -> SoundRecording {
        defer { recorder.kill() }
        let already = recorder.timedStandardOutput.arrivals.last?.end ?? 0
        try waitForSamples(count: already / 2 + Int(seconds * Double(SoundServer.rate)), timeout: seconds + 10)
        let (bytes, arrivals) = recorder.timedStandardOutput
        let count = bytes.count / 2
        let samples = (0..<count).map { Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8) }
        // A sample was recorded when the read it came in arrived, less the samples after it in that read.
        var times: [Double] = []
        times.reserveCapacity(count)
        var read = 0
        for index in 0..<count {
            while arrivals[read].end <= index * 2 { read += 1 }
            times.append(arrivals[read].at - Double(arrivals[read].end - index * 2) / 2 / Double(SoundServer.rate))
        }
        return SoundRecording(samples: samples, rate: SoundServer.rate, times: times)
    }
}

/// Samples recorded from a ``SoundServer``, and the two facts a test checks of them.
public struct SoundRecording: Sendable, CustomStringConvertible {
    public var samples: [Int16]
    public var rate: Int
    /// When each sample was recorded, on the wall clock (seconds since 1970), to within the recorder's 20 ms.
    public var times: [Double]

    public init(samples: [Int16], rate: Int, times: [Double] = []) {
        self.samples = samples
        self.rate = rate
        self.times = times
    }

    /// When, on the wall clock, the sound first became louder than `loudness` over 10 ms; nil if it never did.
    public func onset(louderThan loudness: Double) -> Double? {
        let window = rate / 100
        return stride(from: 0, to: samples.count - window, by: window).first { start in
            SoundRecording(samples: Array(samples[start..<start + window]), rate: rate).loudness > loudness
        }.map { times[$0] }
    }

    /// What a failed expectation prints: not the samples.
    public var description: String {
        "\(samples.count) samples (\(Double(samples.count) / Double(rate)) s), loudness \(loudness)"
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
