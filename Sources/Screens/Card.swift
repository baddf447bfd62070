/// One card of content opened on a chosen screen (the multi-window scene pattern).
public struct Card: Equatable, Codable, Sendable, Identifiable {
    public var id: UInt64
    public var text: String
    /// The screen it is open on (output name), or nil when its screen went away and it waits in the controller's
    /// list to be opened again.
    public var screen: String?

    public init(id: UInt64, text: String, screen: String?) {
        self.id = id
        self.text = text
        self.screen = screen
    }
}
