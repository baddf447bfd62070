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
        // The items around it in the cycle of the items playable now (their windows).
        let cycle = playable(at: time)
        let at = cycle.firstIndex(of: index)
        switch step {
        case .next:
            guard let at else { return self }
            return starting(item: cycle[(at + 1) % cycle.count], at: time)
        case .previous:
            guard let at else { return self }
            return starting(item: cycle[(at + cycle.count - 1) % cycle.count], at: time)
        case .pause: return paused(at: time)
        case .resume: return resumed(at: time)
        }
    }
}
