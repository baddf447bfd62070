import Testing

@testable import Benchmarks

@Suite struct WaylandDebugTraceTests {
    static let sample = """
        [ 134700.100]  -> wl_registry@2.bind(38, "wl_output", 4, new id [unknown]@11)
        [ 134700.200] wl_output@11.done()
        [ 134700.300]  -> wl_compositor@4.create_surface(new id wl_surface@14)
        [ 134750.012]  -> wl_surface@14.commit()
        [ 134774.329]  -> wl_surface@14.attach(wl_buffer@22, 0, 0)
        [ 134774.396]  -> wl_surface@14.commit()
        [ 134779.728]  -> wl_surface@14.attach(wl_buffer@24, 0, 0)
        [ 134779.755]  -> wl_surface@14.commit()
        [4294967.000]  -> wl_shm_pool@17.create_buffer(new id wl_buffer@18, 0, 640, 360, 2560, 0)
        not a trace line
        """

    @Test func parsesPaddedTimestampsAndDirections() {
        let trace = WaylandDebugTrace(text: Self.sample)
        #expect(trace.lines.count == 9)
        #expect(trace.lines[0].time == 134_700_100)
        #expect(trace.lines[0].isRequest && trace.lines[0].message == "bind")
        #expect(!trace.lines[1].isRequest && trace.lines[1].object == "wl_output@11")
    }

    @Test func firstBufferCommitIgnoresTheInitialBufferlessCommit() {
        let trace = WaylandDebugTrace(text: Self.sample)
        #expect(trace.firstBufferCommits.map(\.time) == [134_774_396])
        #expect(trace.createdSurfaces == ["wl_surface@14"])
        #expect(trace.firstBufferCommit(of: "wl_surface@14") == 134_774_396)
        #expect(trace.boundOutputs == ["wl_output@11"])
        #expect(trace.firstDone(of: "wl_output@11") == 134_700_200)
        #expect(trace.shmBuffersCreated == 1)
    }

    @Test func elapsedTimeCrossesTheWrap() {
        #expect(WaylandDebugTrace.milliseconds(from: UInt32.max - 999, to: 1000) == 2.0)
    }

    @Test func percentiles() {
        let samples = (1...100).map(Double.init)
        #expect(SampleStatistics.median(samples) == 50)
        #expect(SampleStatistics.percentile(samples, 95) == 95)
        #expect(SampleStatistics.percentile([7], 99) == 7)
        #expect(SampleStatistics.median([]).isNaN)
    }
}

@Suite struct HotplugAndStartupPhaseTests {
    static let hotplug = """
        [ 200000.000] wl_output@52.done()
        [ 200000.150]  -> wl_compositor@8.create_surface(new id wl_surface@45)
        [ 200000.160]  -> wl_compositor@8.create_surface(new id wl_surface@145)
        [ 200000.170]  -> xdg_wm_base@12.get_xdg_surface(new id xdg_surface@147, wl_surface@145)
        [ 200000.180]  -> xdg_wm_base@12.get_xdg_surface(new id xdg_surface@47, wl_surface@45)
        [ 200002.000] xdg_surface@147.configure(50)
        [ 200003.000] xdg_surface@47.configure(52)
        [ 200009.000]  -> wl_surface@45.attach(wl_buffer@43, 0, 0)
        [ 200009.100]  -> wl_surface@45.commit()
        """

    /// Each surface's own creation and configure, not those of a surface whose id ends with the same digits.
    @Test func findsASurfacesCreationAndFirstConfigure() {
        let trace = WaylandDebugTrace(text: Self.hotplug)
        #expect(trace.creation(of: "wl_surface@45") == 200_000_150)
        #expect(trace.firstConfigure(of: "wl_surface@45") == 200_003_000)
        #expect(trace.firstConfigure(of: "wl_surface@145") == 200_002_000)
        #expect(trace.firstConfigure(of: "wl_surface@9") == nil)
    }

    @Test func readsTheStartupPhasesLine() {
        let output = """
            2026-11-27T14:01:00+0000 notice multiscreen: start-up phases: sources 2.42 ms, connect 0.30 ms, \
            EGL 58.20 ms, first frames 42.90 ms (1 screens)
            """
        let phases = DisplayBenchmarks.startupPhases(in: output)
        #expect(phases.map(\.name) == ["sources", "connect", "EGL", "first frames"])
        #expect(phases.map(\.milliseconds) == [2.42, 0.30, 58.20, 42.90])
        #expect(DisplayBenchmarks.startupPhases(in: "no such line").isEmpty)
    }
}
