import Foundation
import Messaging
import Product

/// Producers → bus → product → reply sinks: every message drained, executed, answered, and its outcome put into
/// effect by the parts that own each piece of it.
extension Application {
    /// Applies every message available now. Bursts coalesce: the screens they touch are marked dirty, and the
    /// render pass that follows draws the final state once.
    func drainMessages() {
        let drainedAt = MonotonicClock.nanoseconds()
        messagesApplied += consumer.drain { received in
            // Each page gets what this message brings it (a reply, events, the message) in one script.
            web.holdDeliveries()
            defer { web.releaseDeliveries() }
            let outcome = product.execute(
                received.message, requestID: received.requestID, producer: received.producerID, now: drainedAt
            ) { vitals }
            if let reply = outcome.reply {
                replies.deliver(reply, to: received.replyTo, producer: received.producerID)
            } else if let request = outcome.mediaToRead {
                let ticket = replies.hold(for: received.replyTo, producer: received.producerID)
                media.read(request, ticket: ticket, screens: screens.ordered)
            } else if let request = outcome.capture {
                capture(request, ticket: replies.hold(for: received.replyTo, producer: received.producerID))
            }
            act(on: outcome, stamp: (outcome.changes.message?.id ?? 0, received.enqueuedAt, drainedAt))
        }
    }

    /// Puts an outcome into effect: events to every sink that wants them, the screen updates the product resolved
    /// from it, the message to the pages, the product's next deadlines, a message to send.
    func act(on outcome: Outcome, stamp: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)? = nil) {
        for event in outcome.events { consumer.publish(event) }
        // What the playlists name and show next changes only with an outcome: worked out here, not at every wakeup.
        assets.sync(product.model.wantedAssets)
        lengths.sync(product.model.videosPlayingTheirLength)
        readAhead = Dictionary(
            uniqueKeysWithValues: product.outputs.map {
                ($0.registryName, product.model.readAhead(of: $0.registryName))
            })
        let updates = product.screenUpdates(for: outcome.changes)
        screens.apply(updates, message: stamp)
        if updates.cursor { seat?.refreshCursor() }
        for name in updates.pageReloads { web.reload(name) }
        if let message = outcome.changes.message {
            web.deliver(
                text: message.text, screen: message.screen, stamp: stamp, among: screens.ordered,
                controller: product.model.assignment.controller)
        }
        deadlines.follow(product, stateChanged: outcome.changes.state)
        if let message = outcome.toSend { localProducer.send(message) }
    }

    /// What `status` reports beyond the product's own state.
    private var vitals: Vitals {
        var vitals = screens.vitals
        (vitals.bus, vitals.wakeups, vitals.applied) = (bus.statistics, bus.wakeupsSent, messagesApplied)
        vitals.sources = Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.counters) })
        vitals.sourceNotes = Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.notes) })
        graphics.addMirrorVitals(to: &vitals)
        vitals.sources.merge(web.sourceCounters) { own, _ in own }
        vitals.pages = web.vitals
        vitals.webEngine = web.engineStatus
        vitals.media = media.vitals
        vitals.assets = assets.status
        vitals.wallClock = Date().timeIntervalSince1970
        vitals.memory = HeapStatistics.current.counters.merging(graphics.textCacheCounters) { $1 }
        return vitals
    }
}
