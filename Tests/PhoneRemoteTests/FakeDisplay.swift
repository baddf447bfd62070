import Foundation
import Messaging
import Synchronization

/// Plays the display thread on a thread of its own: drains the bus, records every message it applies, answers `send`
/// with increasing ids (anything else with an empty result), answers a request id it answered before with the same
/// reply without applying it again, and publishes the events it is given, as the display thread publishes
/// `frame.shown`.
final class FakeDisplay: @unchecked Sendable {
    private let consumer: MessageConsumer
    private let received = Mutex<[ReceivedMessage]>([])
    private let events = Mutex<[Event]>([])
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var nextID: UInt64 = 1
    /// The first reply to each request id (the display thread's retry book).
    private var answered: [String: Reply] = [:]

    init(bus: MessageBus) {
        consumer = bus.makeConsumer()
        let thread = Thread { [self] in loop() }
        thread.name = "fake display"
        thread.start()
    }

    private func loop() {
        while !stopped.load(ordering: .acquiring) {
            _ = consumer.drain { message in
                // As the product does: a request id answered before gets the same reply, applied once.
                if let id = message.requestID, let reply = answered[id] {
                    message.replyTo?.deliver(reply)
                    return
                }
                received.withLock { $0.append(message) }
                let reply: Reply
                switch message.message {
                case .send:
                    reply = .sent(id: nextID, screen: nil)
                    nextID += 1
                default:
                    reply = .result(method: message.message.method, result: [:])
                }
                if let id = message.requestID { answered[id] = reply }
                message.replyTo?.deliver(reply)
            }
            for event in events.withLock({ events in
                defer { events = [] }
                return events
            }) {
                consumer.publish(event)
            }
            _ = consumer.waitForMessages(timeoutMilliseconds: 5)
        }
        done.signal()
    }

    var messages: [Message] { received.withLock { $0.map(\.message) } }

    /// The request ids of the messages applied, in order (nil for none).
    var requestIDs: [String?] { received.withLock { $0.map(\.requestID) } }

    /// Published on the fake display thread at its next turn.
    func publish(_ event: Event) { events.withLock { $0.append(event) } }

    /// Waits (polling, with a deadline) until `condition` holds for the messages received so far.
    func wait(seconds: Double = 5, until condition: ([Message]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(messages) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(messages)
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        done.wait()
    }

    deinit { stop() }
}

extension Message {
    var offerLink: String? {
        if case .remoteOffer(let link, _, _) = self { return link }
        return nil
    }

    var activity: RemoteActivity? {
        if case .remoteActivity(let activity) = self { return activity }
        return nil
    }
}

/// Runs blocking work (a child process, a loop that waits on the bus) on a thread of its own, never on one of the
/// cooperative pool's few threads: a test that blocks those can starve every other test and the server it talks to.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
