/// One thing an assignment changed since the previous one: the display thread publishes each as an event on the
/// bus and logs its ``description``.
public enum RoleChange: Equatable, Sendable, CustomStringConvertible {
    /// An output's effective role changed; `from` is nil for an output that just appeared, `to` nil for one
    /// that went away.
    case role(output: String, from: ScreenRole?, to: ScreenRole?)
    /// The controller UI moved to another screen (nil: none shows it). `standIn` is true when `to` shows it only
    /// while the preferred controller's output is gone (`fallback = "first"`).
    case controllerMoved(from: String?, to: String?, standIn: Bool)
    /// A screen's content mode changed (only screens that are not the controller have one).
    case content(output: String, from: ContentMode?, to: ContentMode?)

    public var description: String {
        switch self {
        case .role(let output, let from, let to):
            return "\(output): role \(from?.rawValue ?? "(new)") → \(to?.rawValue ?? "(gone)")"
        case .controllerMoved(let from, let to, let standIn):
            let suffix = standIn ? " (standing in while the controller's output is gone)" : ""
            return "controller moved from \(from ?? "(none)") to \(to ?? "(none)")\(suffix)"
        case .content(let output, let from, let to):
            return "\(output): content \(from?.rawValue ?? "(none)") → \(to?.rawValue ?? "(none)")"
        }
    }
}
