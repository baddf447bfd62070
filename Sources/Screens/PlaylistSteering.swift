import Outputs

/// The steps an operator took on the playlist a screen plays (``PlaylistStep``): the playlist as the screen had it
/// before the first step, and as the steps left it. It applies while the screen's own playlist is still ``base``:
/// another playlist set, or a schedule that moved on to another, starts from the clock again.
public struct PlaylistSteering: Codable, Equatable, Sendable {
    public var base: Playlist
    public var steered: Playlist

    public init(base: Playlist, steered: Playlist) {
        self.base = base
        self.steered = steered
    }
}
