import Screens

/// What one step of the ``ProductController`` changed: which screens to draw again (resolved against what each
/// screen shows by ``ProductController/screenUpdates(for:)``) and whether the state file must be written. Reported,
/// never set by hand at the call site.
public struct Changes: Equatable, Sendable {
    /// The role assignment changed: every screen's kind is derived again, and every screen redrawn.
    public var assignment = false
    /// A message was logged: every screen showing messages for its screen redraws (and the frame that first shows
    /// it reports its latency).
    public var message: LoggedMessage?
    /// Every screen redraws: messages were cleared or expired, or the theme changed.
    public var everyScreen = false
    /// Screens (output names) whose own content changed: a card opened or closed on them.
    public var screens: Set<String> = []
    /// The phone remote's offer (its QR code and short code, or the lockout notice) changed: only the screens that
    /// show it redraw (external screens showing messages, where the placement puts it), not every screen.
    public var remoteOffer = false
    /// The controller UI shows something new (the text field, focus, the log, the screens list).
    public var controllerUI = false
    /// Screens (output names) the clock switched to a playlist item that crossfades in, each with how long the fade
    /// lasts: what they showed before this step fades out over what they show now.
    public var crossfades: [String: Double] = [:]
    /// Screens (output names) whose web page is to be loaded again (`web.reload`).
    public var pageReloads: Set<String> = []
    /// The persistent state changed: write it soon.
    public var state = false

    public init() {}

    public var isEmpty: Bool { self == Changes() }
}
