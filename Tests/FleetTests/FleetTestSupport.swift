import CompositorHarness
import Fleet
import Foundation
import Messaging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A stand-in for the display thread: drains the bus on its own thread, records every message it applies, answers
/// each one as the product would (a `send` gets an id, `status` a small document, `playlist.set`/`.clear` change
/// what a screen plays) and publishes an event per applied `send`, so the fleet link's request/reply pairing,
/// status and events run as they do in `multiscreen run`.
final class FakeDisplay: @unchecked Sendable {
    let bus: MessageBus
    private let applied = Mutex<[Message]>([])
    /// The screens `status` lists, with their roles (none by default).
    let screens = Mutex<[(name: String, role: String)]>([])
    /// What each screen plays (`playlist.set`), by screen.
    private let playing = Mutex<[String: Message]>([:])
    /// Events to publish as if the product had (proof of play), taken on the stand-in's own thread.
    private let pendingEvents = Mutex<[Event]>([])
    private let stopping = Atomic<Bool>(false)
    /// While set, the stand-in display thread drains nothing (a display thread busy for a while).
    let paused = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Replies given so far, keyed by nothing: the display thread does not know ids, only the order.
    private var nextID: UInt64 = 1
    /// The first reply to each request id (the display thread's retry book).
    private var answered: [String: Reply] = [:]

    init() throws {
        bus = try MessageBus()
        nonisolated(unsafe) let consumer = bus.makeConsumer()
        Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                if paused.load(ordering: .relaxed) {
                    Thread.sleep(forTimeInterval: 0.01)
                    continue
                }
                consumer.waitForMessages(timeoutMilliseconds: 20)
                if paused.load(ordering: .relaxed) { continue }
                let events = pendingEvents.withLock { pending in
                    defer { pending.removeAll() }
                    return pending
                }
                for event in events { consumer.publish(event) }
                consumer.drain { received in
                    // As the product does: a request id answered before gets the same reply, applied once.
                    if let id = received.requestID, let reply = answered[id] {
                        received.replyTo?.deliver(reply)
                        return
                    }
                    applied.withLock { $0.append(received.message) }
                    let reply: Reply
                    switch received.message {
                    case .send(let text, let screen, _):
                        reply = .sent(id: nextID, screen: screen)
                        consumer.publish(.messageReceived(id: nextID, text: text, screen: screen))
                        nextID += 1
                    case .status:
                        // Newest first, like the product's log.
                        let texts = sentTexts.reversed().map { JSONValue.object(["text": .string($0)]) }
                        let listed = screens.withLock { $0 }.map {
                            JSONValue.object(["name": .string($0.name), "role": .string($0.role)])
                        }
                        reply = .result(
                            method: .status, result: ["screens": .array(listed), "messages": .array(texts)])
                    case .setPlaylist(let screen, _):
                        playing.withLock { $0[screen] = received.message }
                        reply = .result(method: .setPlaylist, result: ["screen": .string(screen)])
                    case .clearPlaylist(let screen):
                        if playing.withLock({ $0.removeValue(forKey: screen) }) == nil {
                            reply = .error(MessageError(.refused, "no playlist on \(screen)"))
                        } else {
                            reply = .result(method: .clearPlaylist, result: ["screen": .string(screen)])
                        }
                    case .openCard(let screen, _):
                        reply = .cardOpened(id: nextID, screen: screen)
                        nextID += 1
                    case .closeCard(let screen):
                        reply = .error(MessageError(.invalidParams, "no card on \(screen)"))
                    case .setRole(let screen, let role, _):
                        reply = .roleSet(screen: screen, role: role)
                    default:
                        reply = .error(MessageError(.invalidRequest, "not simulated"))
                    }
                    if let id = received.requestID { answered[id] = reply }
                    received.replyTo?.deliver(reply)
                }
            }
            finished.signal()
        }.start()
    }

    deinit {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }

    /// Every message applied so far, in order (fleet status refreshes included).
    var messages: [Message] { applied.withLock { $0 } }

    /// The `playlist.set` each screen plays now (cleared ones are gone).
    var playlists: [String: Message] { playing.withLock { $0 } }

    /// Publishes `event` from the stand-in's thread, as the product publishes `playlist.played`.
    func publishLater(_ event: Event) { pendingEvents.withLock { $0.append(event) } }

    /// The texts of the `send` messages applied so far.
    var sentTexts: [String] {
        messages.compactMap { message in
            if case .send(let text, _, _) = message { return text }
            return nil
        }
    }
}

/// An operator connected to `broker`, subscribed to every reply, online and status topic of `site`.
func makeOperator(_ broker: MosquittoBroker, site: String = "test") throws -> FleetOperator {
    let client = try FleetOperator(settings: FleetConfig(broker: try BrokerAddress(broker.url), site: site))
    try client.connect()
    try client.subscribe([
        "multiscreen/\(site)/+/reply", "multiscreen/\(site)/+/online", "multiscreen/\(site)/+/status",
        "multiscreen/\(site)/+/events",
    ])
    return client
}

/// Everything an operator has received, kept across calls, searchable with a deadline.
final class Received {
    let client: FleetOperator
    private(set) var messages: [MosquittoMessage] = []

    init(_ client: FleetOperator) { self.client = client }

    /// Steps the client until `condition` holds over everything received, or throws after `timeout`.
    func wait(
        timeout: Double = 10, _ what: String, _ condition: ([MosquittoMessage]) -> Bool
    ) throws {
        let deadline = FleetOperator.now() + timeout
        while true {
            messages += client.takeMessages()
            if condition(messages) { return }
            if FleetOperator.now() > deadline {
                let seen = messages.map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self).prefix(200))" }
                throw HarnessError("timed out waiting for \(what); received:\n\(seen.joined(separator: "\n"))")
            }
            try client.step(until: min(deadline, FleetOperator.now() + 0.05))
        }
    }

    /// The replies (parsed) received on `kiosk`'s reply topic.
    func replies(site: String = "test", kiosk: String) -> [[String: JSONValue]] {
        messages.filter { $0.topic == FleetTopics.reply(site: site, kiosk: kiosk) }.compactMap {
            (try? JSONValue.parse($0.payload))?.objectValue
        }
    }

    /// The last retained or live payload on `topic`, as text.
    func last(_ topic: String) -> String? {
        messages.last { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
    }
}

func kioskConfig(_ broker: MosquittoBroker, kiosk: String, groups: [String] = [], site: String = "test") throws
    -> FleetConfig
{
    FleetConfig(broker: try BrokerAddress(broker.url), site: site, kiosk: kiosk, groups: groups)
}

/// Fast reconnects for tests (the product's defaults are 0.25 s doubling to 30 s).
func testOptions() -> FleetLink.Options {
    var options = FleetLink.Options()
    options.reconnectInitial = 0.05
    options.reconnectMaximum = 0.5
    options.version = "test-version"
    return options
}

/// Waits for a condition on the link's counters.
func waitForCounters(
    _ link: FleetLink, timeout: Double = 10, _ what: String, _ condition: ([String: Int]) -> Bool
) throws {
    try waitUntil(timeout: timeout, "\(what) (counters: \(link.counters))") { condition(link.counters) }
}
