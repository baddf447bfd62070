import Messaging
import Synchronization

/// What the control server's thread hands the display thread's side: a reply with what it answers, or an event line
/// for the subscribers.
enum ControlMail: Sendable {
    case reply(ControlRequestTag, Reply)
    case event(String)
}

/// What a request in the ring belongs to: its connection, its place in that connection's reply order, and the form
/// its reply takes.
struct ControlRequestTag: Sendable {
    var connection: Int
    var sequence: Int
    var envelope: Envelope
}

/// What the server thread and the rest of the process both read: the counters and the number of subscribers.
final class ControlShared: Sendable {
    let statistics = Mutex(ControlStatistics())
    /// Connections subscribed to events, set by the server thread: while it is 0, publishing an event is a load and
    /// an increment, with no lock and no syscall.
    let subscribers = Atomic<Int>(0)
    /// Every event published, subscribers or not.
    let eventsPublished = Atomic<Int>(0)
}
