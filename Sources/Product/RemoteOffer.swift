/// The phone remote's invitation on external screens: the link in the QR code and the short code under it; or,
/// when `locked`, a notice that code entry is locked for a while (no QR code).
public struct RemoteOffer: Equatable, Sendable {
    public var link: String
    public var code: String
    public var locked: Bool

    public init(link: String, code: String, locked: Bool = false) {
        self.link = link
        self.code = code
        self.locked = locked
    }
}
