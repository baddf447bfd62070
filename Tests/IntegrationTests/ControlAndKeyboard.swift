import CompositorHarness
import Remote
import Testing

extension MultiscreenProcess {
    /// One raw request line to the instance's control socket; the reply line.
    func request(_ line: String) throws -> String {
        try ControlClient(path: home + "/control.sock").exchange(line: line)
    }

    /// Keeps a virtual keyboard on the seat: the seat gains the keyboard capability only while one exists, and
    /// keys sent before our `wl_keyboard` exists are lost: a single `wtype` run would lose its first keys.
    func holdKeyboard(_ sway: HeadlessSway) throws -> ChildProcess {
        let holder = try ChildProcess("wtype", ["-s", "600000"], environment: sway.environment)
        try waitForLog("seat: keyboard")
        return holder
    }
}

/// Types with `wtype` (text, or `-k Return` and the like) into `sway`'s focused window.
func typeKeys(_ sway: HeadlessSway, _ arguments: [String]) throws {
    let typist = try ChildProcess("wtype", arguments, environment: sway.environment)
    #expect(try typist.waitForExit(timeout: 10) == 0)
}
