import Outputs

/// A playlist played over whatever a screen shows (`playlist.interrupt`): an announcement that breaks into its
/// run-time playlist, its rule's, its schedule's or any other content until it ends, after which the screen shows
/// what the clock says it would have shown. The mode and everything else set on the screen stay as they were.
public struct PlaylistInterrupt: Codable, Equatable, Sendable {
    /// What plays; its epoch is the moment the interrupt's first item starts, so item 0 shows first.
    public var playlist: Playlist
    /// When it ends, in seconds since 1970; nil: until cleared.
    public var ends: Double?

    public init(playlist: Playlist, ends: Double? = nil) {
        self.playlist = playlist
        self.ends = ends
    }

    /// The item playing at `time`, when it started, and when the screen next switches: the next item, or the end.
    /// Before the epoch the first item shows: an interrupt reaches a kiosk whose clock is a little behind the
    /// sender's early, and the previous cycle's last item (what the playlist's arithmetic gives before its epoch)
    /// would flash first.
    public func position(at time: Double) -> (index: Int, started: Double, next: Double) {
        let position = playlist.position(at: max(time, playlist.epoch))
        return (position.index, position.started, min(position.next, ends ?? .infinity))
    }

    /// This interrupt with its videos' lengths filled in (``Playlist/timed(by:)``).
    public func timed(by lengths: [String: Double]) -> PlaylistInterrupt {
        PlaylistInterrupt(playlist: playlist.timed(by: lengths), ends: ends)
    }

    /// Whether its time is up at `time`.
    public func hasEnded(at time: Double) -> Bool { ends.map { time >= $0 } ?? false }
}
