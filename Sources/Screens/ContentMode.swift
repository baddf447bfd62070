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
    /// A web page: the one opened on this screen (`web.open`), else the URL of the config rule that matches it
    /// (messages when there is neither, as `card` without a card).
    case web

    /// The modes Enter cycles through on the controller's screens list: `web` needs a URL, so it is set by a rule
    /// or `web.open`, never reached by cycling.
    public static let cycle: [ContentMode] = [.messages, .mirror, .card, .blank]
}
