/// How a screen off by schedule was turned off, as `status` reports it.
enum PowerMethod: String {
    /// The compositor turned the output off (`zwlr_output_power_v1`).
    case outputPower = "output-power"
    /// The compositor offers no power switch, or would not use it: the screen is black, and no longer keeps the
    /// outputs awake, so the compositor's own power saving may turn it off.
    case blackScreen = "black-screen"
    /// Asked; the compositor has not answered yet.
    case switching
}
