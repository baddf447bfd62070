import Testing

@testable import Benchmarks

/// R6's soak verdict on made-up minutes: RSS growth is the slope after the warm-up (a leak of 2 MiB/h fails, a
/// warm-up that fills caches does not), fds must not grow, and the last minutes' latency may not double.
@Suite struct SoakReportTests {
    static func samples(
        minutes: Int, rss: (Int) -> Int, fds: (Int) -> Int = { _ in 14 }, p50: (Int) -> Double = { _ in 9 }
    )
        -> [DisplayBenchmarks.SoakSample]
    {
        (1...minutes).map { minute in
            DisplayBenchmarks.SoakSample(
                minute: minute, rss: rss(minute), fds: fds(minute), p50: [p50(minute)], p99: [p50(minute) * 4])
        }
    }

    static func failures(_ samples: [DisplayBenchmarks.SoakSample]) -> [String] {
        DisplayBenchmarks.soakFailures(
            DisplayBenchmarks.soakResults(
                samples: samples, warmUpMinutes: 10, sent: 3600, rejected: 0, slowestReply: 0.01, hotplugs: [200],
                protocolErrors: 0, staleScreens: 0, alive: true))
    }

    @Test func aWarmUpThenFlatMemoryPasses() {
        let mib = 1 << 20
        // 40 MiB of caches over the first ten minutes, then flat but for page-sized noise.
        let flat = Self.samples(minutes: 40) { $0 <= 10 ? 160 * mib + $0 * 4 * mib : 200 * mib + ($0 % 2) * 4096 }
        #expect(Self.failures(flat).isEmpty, "\(Self.failures(flat))")
    }

    @Test func aSteadyLeakFails() {
        let mib = 1 << 20
        // 2 MiB an hour: 2/60 MiB a minute.
        let leaking = Self.samples(minutes: 40) { 200 * mib + $0 * 2 * mib / 60 }
        #expect(Self.failures(leaking).contains { $0.hasPrefix("RSS grew") })
        #expect(abs(DisplayBenchmarks.slopePerHour([(0, 0), (60, Double(mib))]) - Double(mib)) < 1)
    }

    @Test func growingFdsAndDoubledLatencyFail() {
        let growing = Self.samples(minutes: 40, rss: { _ in 1 << 27 }, fds: { 14 + $0 / 20 }, p50: { $0 > 30 ? 30 : 9 })
        let found = Self.failures(growing)
        #expect(found.contains { $0.hasPrefix("fds grew") })
        #expect(found.contains { $0.hasPrefix("message → shown p50") })
    }

    /// What grew is named: the mappings whose resident bytes changed most, largest change first, small ones left out.
    @Test func residentGrowthNamesTheMappingsThatChangedMost() {
        let kib = 1024
        let before = ["[heap]": 16_000 * kib, "/usr/lib/libfoo.so": 900 * kib, "/memfd:wayland-shm": 4_000 * kib]
        let after = [
            "[heap]": 16_010 * kib, "/usr/lib/libfoo.so": 1_780 * kib, "/memfd:wayland-shm": 3_000 * kib,
            "[anon]": 128 * kib, "/usr/share/fonts/a font.ttf": 100 * kib,
        ]
        let grown = DisplayBenchmarks.residentGrowth(from: before, to: after)
        #expect(
            grown.map(\.subject) == [
                "mapping:/memfd:wayland-shm", "mapping:/usr/lib/libfoo.so", "mapping:[anon]",
                "mapping:/usr/share/fonts/a_font.ttf",
            ])
        #expect(grown.map(\.value) == [-1000, 880, 128, 100])
        #expect(DisplayBenchmarks.residentGrowth(from: [:], to: after).isEmpty, "no baseline, no claim")
    }
}
