import Testing

@testable import Benchmarks

@Suite struct KeypressTraceTests {
    static let injector = """
        [ 161361.000]  -> zwp_virtual_keyboard_v1@5.keymap(1, fd 4, 2300)
        [ 161361.977]  -> zwp_virtual_keyboard_v1@5.key(0, 1, 1)
        [ 161364.092]  -> zwp_virtual_keyboard_v1@5.key(0, 1, 0)
        """

    /// Three outputs; the controller on HEADLESS-1 (surface 6), externals on HEADLESS-2 (26) and HEADLESS-3 (32).
    static let multiscreen = """
        [ 159984.064]  -> zxdg_output_manager_v1@8.get_xdg_output(new id zxdg_output_v1@16, wl_output@15)
        [ 159984.126]  -> zxdg_output_manager_v1@8.get_xdg_output(new id zxdg_output_v1@18, wl_output@17)
        [ 159984.170]  -> zxdg_output_manager_v1@8.get_xdg_output(new id zxdg_output_v1@20, wl_output@19)
        [ 159984.533] zxdg_output_v1@16.name("HEADLESS-1")
        [ 159984.697] zxdg_output_v1@18.name("HEADLESS-2")
        [ 159984.839] zxdg_output_v1@20.name("HEADLESS-3")
        [ 159992.552]  -> xdg_wm_base@10.get_xdg_surface(new id xdg_surface@22, wl_surface@6)
        [ 159992.576]  -> xdg_surface@22.get_toplevel(new id xdg_toplevel@23)
        [ 159992.633]  -> xdg_toplevel@23.set_fullscreen(wl_output@15)
        [ 159993.146]  -> xdg_wm_base@10.get_xdg_surface(new id xdg_surface@28, wl_surface@26)
        [ 159993.158]  -> xdg_surface@28.get_toplevel(new id xdg_toplevel@29)
        [ 159993.160]  -> xdg_toplevel@29.set_fullscreen(wl_output@19)
        [ 159993.170]  -> xdg_wm_base@10.get_xdg_surface(new id xdg_surface@34, wl_surface@32)
        [ 159993.180]  -> xdg_surface@34.get_toplevel(new id xdg_toplevel@35)
        [ 159993.190]  -> xdg_toplevel@35.set_fullscreen(wl_output@17)
        [ 160072.529]  -> wl_surface@26.attach(wl_buffer@47, 0, 0)
        [ 160072.533]  -> wl_surface@26.commit()
        [ 161370.000]  -> wl_surface@32.commit()
        [ 161377.502]  -> wl_surface@6.attach(wl_buffer@41, 0, 0)
        [ 161377.513]  -> wl_surface@6.commit()
        [ 161385.522]  -> wl_surface@26.attach(wl_buffer@45, 0, 0)
        [ 161385.552]  -> wl_surface@26.commit()
        [ 161386.181]  -> wl_surface@32.attach(wl_buffer@51, 0, 0)
        [ 161386.189]  -> wl_surface@32.commit()
        [ 161390.181]  -> wl_surface@32.attach(wl_buffer@53, 0, 0)
        [ 161390.189]  -> wl_surface@32.commit()
        """

    @Test func theInjectedKeyIsTheLastPressNotTheRelease() {
        #expect(KeypressTrace.lastKeyPress(in: WaylandDebugTrace(text: Self.injector)) == 161_361_977)
        let releasesOnly = "[ 161364.092]  -> zwp_virtual_keyboard_v1@5.key(0, 1, 0)"
        #expect(KeypressTrace.lastKeyPress(in: WaylandDebugTrace(text: releasesOnly)) == nil)
    }

    @Test func firstBufferCommitAfterTheKeyOnEachNamedOutput() {
        let commits = KeypressTrace.firstCommits(
            after: 161_361_977, on: ["HEADLESS-2", "HEADLESS-3"], in: WaylandDebugTrace(text: Self.multiscreen))
        // Surface 26 is on wl_output@19 = HEADLESS-3; its commit before the key does not count. Surface 32's commit
        // without an attach does not count either; its first buffer commit after the key does, not the later one.
        #expect(commits == ["HEADLESS-3": 161_385_552, "HEADLESS-2": 161_386_189])
    }

    @Test func theClockMayWrapBetweenTheKeyAndTheCommit() {
        let setUp = Self.multiscreen.split(separator: "\n").prefix { !$0.contains("attach") }
        let trace = WaylandDebugTrace(
            text: setUp.joined(separator: "\n") + "\n[4294966.000]  -> wl_surface@32.attach(wl_buffer@53, 0, 0)"
                + "\n[4294966.010]  -> wl_surface@32.commit()"
                + "\n[      0.250]  -> wl_surface@32.attach(wl_buffer@55, 0, 0)"
                + "\n[      0.300]  -> wl_surface@32.commit()")
        // The key 0.7 ms before the 32-bit microsecond clock wraps; a commit before it, then one 1 ms later, after the wrap.
        let key = UInt32.max - 699
        #expect(KeypressTrace.firstCommits(after: key, on: ["HEADLESS-2"], in: trace) == ["HEADLESS-2": 300])
        #expect(WaylandDebugTrace.milliseconds(from: key, to: 300) == 1.0)
    }
}
