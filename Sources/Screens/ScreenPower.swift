/// Whether a screen is on, as its `[[schedule]]` says. Off by schedule is a state the operator chose, reported as
/// such in `status` and events, never as a failed or stale screen.
public enum ScreenPower: String, Sendable {
    case on
    /// A period of the screen's schedule says `power = "off"`: the output is turned off where the compositor lets a
    /// client do that, else the screen is black and no longer keeps the outputs awake.
    case scheduledOff = "off (scheduled)"
}
