/// What an event or a removal did to the set of known outputs.
public enum OutputChange: Equatable, Sendable {
    /// The output is complete for the first time: it can get a window.
    case added(OutputInfo)
    /// A complete output changed (mode, scale, transform, name, position…).
    case changed(old: OutputInfo, new: OutputInfo)
    /// The `wl_output` global went away.
    case removed(OutputInfo)
}
