/// What an operator does to the playlist a screen plays, away from what the clock alone would show: `playlist.next`
/// and `playlist.previous` move the cycle so that the next or previous item starts now, `playlist.pause` holds the
/// item shown now, `playlist.resume` goes on from there. The clock still decides everything after a step; the step
/// only says where the cycle begins (``Playlist/epoch``) or that it is held (``Playlist/pausedAt``).
public enum PlaylistStep: String, CaseIterable, Codable, Sendable {
    case next
    case previous
    case pause
    case resume
}

extension Playlist {
    /// This playlist after `step`, taken at `time` (seconds since 1970). Every screen given the same playlist and the
    /// same `time` takes the same step, so screens that switched together go on switching together.
    public func taking(_ step: PlaylistStep, at time: Double) -> Playlist {
        let now = pausedAt ?? time
        let index = position(at: now).index
        switch step {
        case .next: return starting(item: (index + 1) % items.count, at: time)
        case .previous: return starting(item: (index + items.count - 1) % items.count, at: time)
        case .pause: return paused(at: time)
        case .resume: return resumed(at: time)
        }
    }
}
