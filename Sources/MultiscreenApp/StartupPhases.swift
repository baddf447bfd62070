import Logging
import Messaging

/// How long each step of start-up took on the display thread, logged once (at `notice`) when every screen open at
/// start has committed its first frame, so that a slow start names its phase. `multiscreen bench startup` reads
/// the line; what it measures from exec to the first commits beyond these phases is the process's own start
/// (loading, the Swift runtime, parsing the arguments).
///
/// The phases, in order: `sources` (the config, the saved state and the message sources: the control socket, the
/// phone remote's server, the fleet link, as configured), `connect` (the Wayland connection and the loop's
/// timers), `EGL` (the display and the context: loading Mesa), `globals` (binding the compositor's globals and the
/// outputs' first descriptions), `fonts` (waiting for the font loader thread, which starts before `connect`),
/// `shaders` (compiling the canvas's programs), `first frames` (creating the windows, the first configures and
/// drawing every screen). The web engine and the media pipelines start with the first page or picture, after
/// these.
struct StartupPhases {
    private var last = MonotonicClock.nanoseconds()
    private var phases: [(name: String, nanoseconds: UInt64)] = []

    /// Ends the phase called `name`: the time since the previous mark (or since this value was made).
    mutating func mark(_ name: String) {
        let now = MonotonicClock.nanoseconds()
        phases.append((name, now - last))
        last = now
    }

    /// The line `bench startup` parses: "start-up phases: sources 1.20 ms, connect 0.41 ms, …".
    var summary: String {
        "start-up phases: "
            + phases.map { "\($0.name) \(FrameTimeline.milliseconds($0.nanoseconds)) ms" }
            .joined(separator: ", ")
    }
}
