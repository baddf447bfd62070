import Foundation
import LatencyReport
import Messaging

/// The `frame.shown` events of the run, by screen and message id; waited on by the sending loop.
final class EventCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var byScreen: [String: [UInt64: ShownMessage]] = [:]
    private var isSubscribed = false
    private var ended = false
    private var finished = false

    func subscribed() {
        condition.withLock {
            isSubscribed = true
            condition.broadcast()
        }
    }

    func streamEnded() {
        condition.withLock {
            ended = true
            condition.broadcast()
        }
    }

    func finish() { condition.withLock { finished = true } }
    var isFinished: Bool { condition.withLock { finished } }

    func add(_ event: Event) {
        guard let (screen, messages) = ShownMessage.parse(event) else { return }
        condition.withLock {
            for message in messages where byScreen[screen]?[message.id] == nil {
                byScreen[screen, default: [:]][message.id] = message
            }
            condition.broadcast()
        }
    }

    func shown(on screen: String) -> [UInt64: ShownMessage] { condition.withLock { byScreen[screen] ?? [:] } }

    func waitForSubscription(timeout: Double) -> Bool {
        wait(timeout: timeout) { isSubscribed }
    }

    /// Waits until message `id` is reported by every screen in `screens`.
    func waitUntilAccounted(_ id: UInt64, on screens: [String], timeout: Double) -> Bool {
        wait(timeout: timeout) { screens.allSatisfy { byScreen[$0]?[id] != nil } }
    }

    private func wait(timeout: Double, until done: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done() {
            if ended || !condition.wait(until: deadline) { return done() }
        }
        return true
    }
}
