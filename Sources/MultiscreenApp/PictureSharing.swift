import Wayland

/// Which screens of a render pass draw their own frame and which show the frame of an identical screen: screens
/// whose ``SharedPicture``s are equal form a group, one of them (its leader) draws the picture into its own shared
/// frames, and every other shows the leader's newest frame through a `wl_buffer` of its own. Sixteen screens showing
/// the same message cost one software render and one read-back, not sixteen.
///
/// The leader stays the same from pass to pass while it is in the group and shown: moving it would start another
/// pool of frames. A leader the compositor stopped showing (stale, failed) or that is off by schedule hands over to
/// the first member that is shown, so that no screen waits for a picture that is never drawn.
struct PictureSharing {
    enum Part {
        /// Draws `picture` into ``Screen/leaderPool``.
        case leads(SharedPicture)
        /// Shows `leader`'s frame once it holds `picture`.
        case follows(leader: Screen, picture: SharedPicture)
    }

    private var parts: [ObjectIdentifier: Part] = [:]
    /// Each leader's followers, in output order.
    private var followers: [ObjectIdentifier: [Screen]] = [:]

    /// - Parameter picture: each screen's picture, nil for one that draws its own frame; screens in output order.
    init(_ screens: [Screen], picture: (Screen) -> SharedPicture?) {
        var groups: [SharedPicture: [Screen]] = [:]
        var order: [SharedPicture] = []
        for screen in screens {
            guard let shown = picture(screen) else { continue }
            if groups[shown] == nil { order.append(shown) }
            groups[shown, default: []].append(screen)
        }
        func canLead(_ screen: Screen) -> Bool { screen.health == .ok && screen.power == .on }
        for shown in order {
            guard let members = groups[shown] else { continue }
            let leader =
                members.first { $0.leaderPool != nil && canLead($0) } ?? members.first(where: canLead) ?? members[0]
            for member in members {
                parts[ObjectIdentifier(member)] =
                    member === leader ? .leads(shown) : .follows(leader: leader, picture: shown)
            }
            followers[ObjectIdentifier(leader)] = members.filter { $0 !== leader }
        }
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
