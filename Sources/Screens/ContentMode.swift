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
    /// An image (still or animated): the one shown with `media.show`, else the `path` of the config rule that matches.
    case image
    /// A video, as `image`.
    case video
    /// The playlist set on this screen (`playlist.set`): its items in turn, as the wall clock says (messages when
    /// there is none).
    case playlist

    /// The modes Enter cycles through on the controller's screens list: `web`, `image`, `video` and `playlist` need a
    /// URL, a file or items, so they are set by a rule, `web.open`, `media.show` or `playlist.set`, never reached by
    /// cycling.
    public static let cycle: [ContentMode] = [.messages, .mirror, .card, .blank]
}
