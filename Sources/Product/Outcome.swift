import Messaging

/// The result of one step of the ``ProductController``: the reply owed to a request (nil for steps that answer
/// nobody, such as an output change or a key), the events it caused, what changed, and a message the controller
/// UI asks to send (its Send button goes through the bus like every other producer).
public struct Outcome: Equatable, Sendable {
    public var reply: Reply?
    public var events: [Event] = []
    public var changes = Changes()
    /// Set when the controller UI's Send was activated: the caller enqueues it on its own producer.
    public var toSend: Message?
    /// A `media.show` whose file must be read before it is answered (`reply` is nil then): the caller hands it to its
    /// media owner with the request's reply sink.
    public var mediaToRead: MediaRequest?
    /// A `screen.capture` to carry out before it is answered (`reply` is nil then).
    public var capture: CaptureRequest?

    public init(reply: Reply? = nil) { self.reply = reply }
}
