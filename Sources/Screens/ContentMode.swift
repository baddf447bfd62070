/// What an external screen shows.
public enum ContentMode: String, Codable, Sendable, CaseIterable {
    /// The received messages, newest first, each with its time (the starter kit's external display).
    case messages
    /// The controller UI, scaled with its aspect ratio kept and letterboxed, rendered live.
    case mirror
    /// The card opened on this screen (messages when none is open).
    case card
    /// Nothing but black.
    case blank
}
