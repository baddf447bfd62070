import CompositorHarness
import Foundation
import Messaging
import Outputs

extension DisplayBenchmarks {
    /// Controller message → commit on HEADLESS-1 (Multiscreen's own `latency:` log line) while HEADLESS-2's playlist
    /// names a 200 MB asset that downloads from a local server at `megabytesPerSecond`, against the same kiosk with
    /// nothing downloading, alternated `rounds` times on one instance (a new URL each round: a new download).
    /// - Returns: each phase's p50 and p99, the ratio of the p99s, the quiet phase's half/half p99 (the noise to judge
    ///   it by), and how many of the loaded phase's messages were sent while the download was under way.
    func assetDownloadLatency(rounds: Int, messages: Int, megabytesPerSecond: Int = 25) throws -> (
        results: [BenchmarkResult], ratio: Double
    ) {
        let size = 200 << 20
        let server = try ChildProcess(
            "python3", ["-c", Self.throttledServer, String(size), String(megabytesPerSecond << 20)])
        defer { server.kill() }
        let port = try server.waitForLine(containing: "port ", timeout: 10).split(separator: " ").last.map(String.init)
        guard let port else { throw HarnessError("the asset server said no port") }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("ms-assets-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let instance = try Instance(
            binary: binary, outputs: 2, width: width, height: height,
            config: "[assets]\ndirectory = \"\(cache)\"\ncache_limit = 4096\ndownload_limit = 1024\n")
        defer { instance.stop() }
        var commits: [Int: Double] = [:]
        var quiet: [Int] = []
        var loaded: [Int] = []
        var duringDownload = 0
        func downloading() throws -> Bool {
            let reply = try instance.client.exchange(line: MessageCodec.encodeRequest(.status))
            return reply.contains(#""downloading":1"#)
        }
        for round in 0..<rounds {
            quiet += try Self.controllerCommits(instance, "quiet \(round)", messages: messages, into: &commits)
            let url = "http://127.0.0.1:\(port)/large-\(round)-\(UUID().uuidString).png"
            let playlist = Playlist(items: [.init(source: url, seconds: 10)])
            let reply = try instance.client.exchange(
                line: MessageCodec.encodeRequest(.setPlaylist(screen: "HEADLESS-2", playlist: playlist)))
            guard reply.contains("\"result\"") else { throw HarnessError("playlist.set refused: \(reply)") }
            try waitUntil(timeout: 10, "the download under way") { try downloading() }
            let ids = try Self.controllerCommits(instance, "loaded \(round)", messages: messages, into: &commits)
            if try downloading() { duringDownload += ids.count }
            loaded += ids
            _ = try instance.client.exchange(line: MessageCodec.encodeRequest(.clearPlaylist(screen: "HEADLESS-2")))
            try waitUntil(timeout: 30, "the download over") { try !downloading() }
            mediaLogger.info("playlist: download round \(round + 1)/\(rounds) done")
        }
        let results =
            Self.framesUnderLoad(
                benchmark: "playlist-download-latency", screen: "HEADLESS-1", commits: ["HEADLESS-1": commits],
                quiet: (name: "none-downloading", ids: quiet), loaded: (name: "200MB-downloading", ids: loaded))
            + [
                BenchmarkResult(
                    benchmark: "playlist-download-latency", subject: "200MB-downloading",
                    metric: "messages-sent-while-downloading", value: Double(duringDownload), unit: "messages",
                    samples: loaded.count)
            ]
        let ratio = results.first { $0.metric == "p99-200MB-downloading/none-downloading" }?.value ?? .nan
        return (results, ratio)
    }

    /// A local HTTP server whose every GET is `argv[1]` bytes sent at `argv[2]` bytes per second; prints its port.
    private static let throttledServer = """
        import http.server, socketserver, sys, time
        size, rate = int(sys.argv[1]), int(sys.argv[2])
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                chunk, sent, start = bytes(1 << 20), 0, time.time()
                try:
                    while sent < size:
                        part = chunk[: min(len(chunk), size - sent)]
                        self.wfile.write(part)
                        sent += len(part)
                        ahead = sent / rate - (time.time() - start)
                        if ahead > 0:
                            time.sleep(ahead)
                except (BrokenPipeError, ConnectionResetError):
                    pass
            def log_message(self, *args):
                pass
        socketserver.ThreadingTCPServer.daemon_threads = True
        with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler) as server:
            print("port", server.server_address[1], flush=True)
            server.serve_forever()
        """
}
