/// One event about an output, as the Wayland layer receives it from `wl_output` or `zxdg_output_v1`.
///
/// The Wayland layer translates C callbacks into these values so that all bookkeeping lives in pure,
/// testable Swift (``OutputTracker``).
public enum OutputEvent: Equatable, Sendable {
    case geometry(
        x: Int32, y: Int32, physicalWidth: Int32, physicalHeight: Int32, make: String, model: String,
        transform: Int32)
    /// Only modes flagged `current` are reported; others are ignored by the Wayland layer.
    case mode(width: Int32, height: Int32, refresh: Int32)
    case scale(Int32)
    case name(String)
    case description(String)
    /// `zxdg_output_v1.name` / `.description` (the only source on wl_output v3 compositors such as weston 10).
    case xdgName(String)
    case xdgDescription(String)
    case logicalPosition(x: Int32, y: Int32)
    case logicalSize(width: Int32, height: Int32)
    /// `wl_output.done`: apply everything pending atomically.
    case done
    /// `zxdg_output_v1.done` (versions 1 and 2 only; deprecated in 3, where `wl_output.done` covers both).
    case xdgDone
}
