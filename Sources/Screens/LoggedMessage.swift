import Foundation

/// A message as the screens show it: its text, when it arrived, and the screen it was for (nil: every screen).
public struct LoggedMessage: Equatable, Codable, Sendable, Identifiable {
    public var id: UInt64
    public var text: String
    /// Wall-clock time of arrival, shown next to the message ("14:03:27").
    public var receivedAt: Date
    /// The screen (output name) the sender addressed, or nil for all external screens.
    public var screen: String?

    public init(id: UInt64, text: String, receivedAt: Date, screen: String?) {
        self.id = id
        self.text = text
        self.receivedAt = receivedAt
        self.screen = screen
    }
}
