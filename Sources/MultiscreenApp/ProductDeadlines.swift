import Foundation
import Product
import Wayland

/// The ``ProductController``'s deadlines as timers on the display thread's loop: the state write a change asks
/// for, the next message whose ttl is up, the next playlist item. Each is armed for one deadline at a time and calls
/// back when it comes; with none pending, an idle Multiscreen makes no wakeups.
final class ProductDeadlines {
    /// How long a burst of changes may gather before one state write: also the most a crash (not a signal) can
    /// lose. The atomic write costs two fsyncs, which must not sit between a message and its frame.
    static let saveDelay = 0.5
    /// How long after a failed write (disk full, read-only) the state file is tried again.
    static let saveRetryDelay = 3.0

    private let saveTimer: OneShotTimer
    /// Fires when the next message sent with a ttl is due to go.
    private let expiryTimer: OneShotTimer
    /// Fires when a playlist's next item is due: the only wakeup a playlist of pictures costs.
    private let playlistTimer: OneShotTimer
    /// The switch ``playlistTimer`` waits for. A later one never replaces it before it has fired: the timer fires a
    /// millisecond after the switch, and a step in that millisecond finds the next switch after it, which would skip
    /// the item that was due (it would stay on screen, and in the proof of play, until the one after).
    private var playlistSwitch: Date?
    /// The state is due to be written.
    var save: () -> Void = {}
    /// A message's ttl is up.
    var expire: () -> Void = {}
    /// A playlist's next item is due.
    var advancePlaylists: () -> Void = {}

    init(loop: EventLoop) throws {
        saveTimer = try OneShotTimer(on: loop)
        expiryTimer = try OneShotTimer(on: loop)
        playlistTimer = try OneShotTimer(on: loop)
        saveTimer.fired = { [unowned self] in save() }
        expiryTimer.fired = { [unowned self] in expire() }
        playlistTimer.fired = { [unowned self] in advancePlaylists() }
    }

    /// The state is unsaved: a write soon, or at the retry already pending.
    func saveSoon() { saveTimer.armUnlessPending(after: Self.saveDelay) }

    /// A write failed: the next try after a while.
    func retrySave() { saveTimer.arm(after: Self.saveRetryDelay) }

    /// Arms the timers for `product` after a step: a write soon when the step changed the state, and its next
    /// expiry and playlist item, wherever they are now (a playlist switch already waited for stays first).
    func follow(_ product: ProductController, stateChanged: Bool) {
        if stateChanged { saveSoon() }
        if let next = product.nextExpiry { expiryTimer.arm(for: next, after: max(next.timeIntervalSinceNow, 0)) }
        // A millisecond late rather than early: a timer that fired a hair before the switch would find the same item.
        if let next = product.nextPlaylistSwitch {
            if playlistTimer.isPending, let armed = playlistSwitch, armed < next { return }
            playlistSwitch = next
            playlistTimer.arm(for: next, after: max(next.timeIntervalSinceNow, 0) + 0.001)
        } else {
            playlistTimer.disarm()
        }
    }
}
