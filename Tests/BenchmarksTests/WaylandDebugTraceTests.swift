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
