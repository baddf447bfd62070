/// How a playlist item takes over from the one before it when the clock switches to it.
public enum PlaylistTransition: String, Codable, Sendable, CaseIterable {
    /// At once, on one refresh.
    case cut
    /// The item before fades out over it, for ``Playlist/crossfadeSeconds`` (at most half the item's turn).
    case crossfade
}
