/// Which screens of a render pass draw their own frame and which show the frame of an identical screen: screens
/// whose ``SharedPicture``s are equal form a group, one of them (its leader) draws the picture into its own shared
/// frames, and every other shows the leader's newest frame through a `wl_buffer` of its own. Sixteen screens showing
/// the same message cost one software render and one read-back, not sixteen.
///
/// The leader stays the same from pass to pass while it is in the group and shown: moving it would start another
/// pool of frames. A leader that cannot draw (its content waited ``handOverAfter`` for a compositor that has not
/// answered its last frame: a hidden output, one the compositor stopped showing), that is stale or failed, or that is
/// off by schedule hands over to the first member that can, so that no screen waits for a picture that is never
/// drawn.
struct PictureSharing {
    /// How long a leader's content may wait unshown before another member draws the group's picture: many frames of a
    /// software renderer, far less than the 2 s after which ``ScreenSet`` would judge its followers stale.
    static let handOverAfter: UInt64 = 250_000_000

    enum Part {
        /// Draws `picture` into ``Screen/leaderPool``.
        case leads(SharedPicture)
        /// Shows `leader`'s frame once it holds `picture`.
        case follows(leader: Screen, picture: SharedPicture)
    }

    private var parts: [ObjectIdentifier: Part] = [:]
    /// Each leader's followers, in output order.
    private var followers: [ObjectIdentifier: [Screen]] = [:]

    /// - Parameters:
    ///   - screens: in output order.
    ///   - now: `CLOCK_MONOTONIC` ns, to judge how long a leader has waited.
    ///   - picture: each screen's picture, nil for one that draws its own frame.
    init(_ screens: [Screen], now: UInt64, picture: (Screen) -> SharedPicture?) {
        var groups: [SharedPicture: [Screen]] = [:]
        var order: [SharedPicture] = []
        for screen in screens {
            guard let shown = picture(screen) else { continue }
            if groups[shown] == nil { order.append(shown) }
            groups[shown, default: []].append(screen)
        }
        func canLead(_ screen: Screen) -> Bool {
            let waited = screen.timeline.unshownSince.map { now &- $0 } ?? 0
            return screen.health == .ok && screen.power == .on
                && !Self.isBlocked(waited: waited, waitsForCompositor: screen.timeline.waitsForCompositor)
        }
        for shown in order {
            // A screen alone with its picture draws it into its own window surface, as it always did: a new output
            // (hotplug, start-up) is not slowed down by a pool of frames nobody else shows.
            guard let members = groups[shown], members.count > 1 else { continue }
            let leader = members[
                Self.leaderIndex(
                    members.map { ($0.leaderPicture == shown, $0.leaderPool != nil, canLead($0)) })]
            for member in members {
                parts[ObjectIdentifier(member)] =
                    member === leader ? .leads(shown) : .follows(leader: leader, picture: shown)
            }
            followers[ObjectIdentifier(leader)] = members.filter { $0 !== leader }
        }
    }

    /// Which member leads: the one that drew this picture already, else one that led before (its pool is there),
    /// else the first, each only if it can lead; the first of all when none can.
    static func leaderIndex(_ members: [(drewPicture: Bool, hasPool: Bool, canLead: Bool)]) -> Int {
        members.firstIndex { $0.drewPicture && $0.canLead } ?? members.firstIndex { $0.hasPool && $0.canLead }
            ?? members.firstIndex(where: \.canLead) ?? 0
    }

    /// A screen whose content waited `handOverAfter` for a compositor that has not answered its last frame cannot
    /// lead; one that waits only for its leader, or was just changed, can.
    static func isBlocked(waited: UInt64, waitsForCompositor: Bool) -> Bool {
        waited >= handOverAfter && waitsForCompositor
    }

    func part(of screen: Screen) -> Part? { parts[ObjectIdentifier(screen)] }

    /// The screens that show `leader`'s frame, in output order.
    func followers(of leader: Screen) -> [Screen] { followers[ObjectIdentifier(leader)] ?? [] }

    /// Whether `follower` can show its leader's frame now: the leader's newest frame holds the picture and nothing
    /// the leader shows waits to be drawn (a change the picture does not name, such as the theme's font).
    static func isReady(_ leader: Screen, for picture: SharedPicture) -> Bool {
        leader.leaderPicture == picture && !leader.timeline.needsDrawing
    }
}
