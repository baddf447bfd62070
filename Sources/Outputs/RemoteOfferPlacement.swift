/// Where the phone remote's invitation (the QR code, the short code and the address) goes: one corner, on the
/// external screens showing messages, all of them or those named (`[remote]` `qr_position` and `qr_screens`).
public struct RemoteOfferPlacement: Equatable, Sendable {
    public var corner: ScreenCorner
    /// Output names (as `status` shows them, e.g. `HDMI-A-1`); nil: every external screen showing messages. Empty:
    /// none (the link is then only in the log).
    public var screens: Set<String>?

    public init(corner: ScreenCorner = .bottomRight, screens: Set<String>? = nil) {
        self.corner = corner
        self.screens = screens
    }

    /// Whether the screen on the output named `name` shows the invitation when it shows messages.
    public func shows(onScreenNamed name: String) -> Bool { screens?.contains(name) ?? true }
}
