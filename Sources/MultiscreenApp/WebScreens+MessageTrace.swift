import Logging
import Messaging
import Screens
import WebContent

/// Messages to the pages, traced: each message handed to a page is followed from its enqueueing to the frame that
/// shows it (``PageMessageTrace``), and the deliveries of one message go to each page as one script.
extension WebScreens {
    /// Whether the page on this screen has a frame waiting to be drawn that shows a message handed to it.
    func showsMessage(_ name: UInt32) -> Bool {
        guard let page = pages[name] else { return false }
        return page.view.hasFrameWaiting && page.waiting.contains { $0.script != nil }
    }

    /// The compositor showed a frame of this screen, committed at `committedAt`: its page may draw the next one.
    func shown(_ name: UInt32, committedAt: UInt64?) {
        guard var page = pages[name] else { return }
        page.view.framePresented()
        guard !page.carried.isEmpty else { return }
        let now = MonotonicClock.nanoseconds()
        for message in page.carried {
            let split = message.stages(committedAt: committedAt, shownAt: now)
            logger.debug(
                "web latency: message #\(message.id) on \(page.view.bridge.name) enqueue→shown \(split.total) ms: \(split.stages)"
            )
            page.latencies.append(split)
        }
        page.latencies = Array(page.latencies.suffix(Self.latencySamples))
        page.carried = []
        pages[name] = page
    }

    func holdDeliveries() {
        holding = true
        for page in pages.values { page.view.bridge.hold() }
    }

    func releaseDeliveries() {
        guard holding else { return }
        holding = false
        for (name, page) in pages where page.view.bridge.release() {
            let (now, script) = (MonotonicClock.nanoseconds(), page.view.scriptsSent)
            pages[name]?.waiting = page.waiting.map { message in
                guard message.script == nil else { return message }
                var handed = message
                (handed.deliveredAt, handed.script) = (now, script)
                return handed
            }
        }
    }

    /// A message arrived for `screen` (nil: every screen): the pages it is for receive it (`receiveMessage`), except
    /// one in place of the controller UI, which is where messages come from, not where they are shown.
    func deliver(
        text: String, screen: String?, stamp: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)?,
        among screens: [Screen], controller: UInt32?
    ) {
        let names = screens.filter { candidate in
            candidate.output.registryName != controller && (screen == nil || screen == candidate.output.displayName)
        }.map(\.output.registryName)
        for name in names {
            guard let view = pages[name]?.view else { continue }
            view.bridge.show(text: text, screen: screen)
            guard let stamp else { continue }
            // Held: stamped when its script goes (``releaseDeliveries()``).
            let handed = holding ? nil : (at: MonotonicClock.nanoseconds(), script: view.scriptsSent)
            pages[name]?.waiting.append(
                PageMessageTrace(
                    id: stamp.id, enqueuedAt: stamp.enqueuedAt, drainedAt: stamp.drainedAt, deliveredAt: handed?.at,
                    script: handed?.script))
        }
    }

    /// The page's web process answered delivery script `number`.
    func scriptCompleted(_ number: UInt64, on name: UInt32) {
        guard let page = pages[name] else { return }
        let now = MonotonicClock.nanoseconds()
        if let index = page.waiting.firstIndex(where: { $0.script == number }) {
            pages[name]?.waiting[index].ranAt = now
        } else if let index = page.carried.firstIndex(where: { $0.script == number }) {
            pages[name]?.carried[index].ranAt = now
        }
    }
}
