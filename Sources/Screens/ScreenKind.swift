import Outputs

/// What a screen shows, derived from an ``Assignment``: the controller UI, or external content in one of the
/// content modes. Never stored beside the assignment: ask ``Assignment/kind(of:)`` again.
public enum ScreenKind: Equatable, Sendable {
    case controller
    case external(ContentMode)
    /// A web page at this URL, on an external screen or in place of the controller UI (``ScreenModel/page(of:)``).
    case web(url: String)
    /// An image or a video on an external screen (``ScreenModel/media(of:)``).
    case media(ShownMedia)
    /// A playlist's text slide or card on an external screen.
    case slide(Slide)

    /// A page, whose frames come from its web view rather than from Multiscreen's own drawing.
    public var isWeb: Bool {
        if case .web = self { return true }
        return false
    }
}

extension Assignment {
    /// The kind of the screen on the output with this registry name.
    public func kind(of registryName: UInt32) -> ScreenKind {
        controller == registryName ? .controller : .external(contents[registryName] ?? .messages)
    }
}
