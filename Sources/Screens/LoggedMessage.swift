import Foundation

/// A message as the screens show it: its text, when it arrived, and the screen it was for (nil: every screen).
public struct LoggedMessage: Equatable, Codable, Sendable, Identifiable {
    public var id: UInt64
    public var text: String
    /// Wall-clock time of arrival, shown next to the message ("14:03:27").
    public var receivedAt: Date
    /// The screen (output name) the sender addressed, or nil for all external screens.
    public var screen: String?
    /// When the message stops being shown (`send --ttl`); nil: until newer messages push it out of the log.
    public var expiresAt: Date?
    /// Screens that cleared it (`messages.clear --screen`) while others still show it.
    public var hiddenOn: Set<String>

    public init(
        id: UInt64, text: String, receivedAt: Date, screen: String?, expiresAt: Date? = nil,
        hiddenOn: Set<String> = []
    ) {
        self.id = id
        self.text = text
        self.receivedAt = receivedAt
        self.screen = screen
        self.expiresAt = expiresAt
        self.hiddenOn = hiddenOn
    }

    /// Whether the screen named `screenName` shows it: addressed to that screen or to every screen, and not
    /// cleared there.
    public func isShown(on screenName: String) -> Bool {
        (screen == nil || screen == screenName) && !hiddenOn.contains(screenName)
    }

    private enum CodingKeys: String, CodingKey {
        case id, text, receivedAt, screen, expiresAt, hiddenOn
    }

    /// State files written before `expiresAt` and `hiddenOn` existed still load.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        id = try values.decode(UInt64.self, forKey: .id)
        text = try values.decode(String.self, forKey: .text)
        receivedAt = try values.decode(Date.self, forKey: .receivedAt)
        screen = try values.decodeIfPresent(String.self, forKey: .screen)
        expiresAt = try values.decodeIfPresent(Date.self, forKey: .expiresAt)
        hiddenOn = try values.decodeIfPresent(Set<String>.self, forKey: .hiddenOn) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(id, forKey: .id)
        try values.encode(text, forKey: .text)
        try values.encode(receivedAt, forKey: .receivedAt)
        try values.encodeIfPresent(screen, forKey: .screen)
        try values.encodeIfPresent(expiresAt, forKey: .expiresAt)
        if !hiddenOn.isEmpty { try values.encode(hiddenOn.sorted(), forKey: .hiddenOn) }
    }
}
