/// A corner of a screen, by its name in flags and the config (`bottom-right`): where the photodiode patch and the
/// phone remote's QR code go.
public enum ScreenCorner: String, CaseIterable, Sendable {
    case topLeft = "top-left"
    case topRight = "top-right"
    case bottomLeft = "bottom-left"
    case bottomRight = "bottom-right"

    public var isRight: Bool { self == .topRight || self == .bottomRight }
    public var isBottom: Bool { self == .bottomLeft || self == .bottomRight }

    /// The names, for an error that lists what is accepted.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
