import Messaging
import Testing

@testable import WebContent

/// A page's bridge against a real bus: what it enqueues, what it refuses, and what the page is handed back.
struct PageBridgeTests {
    private func bridge() throws -> (PageBridge, MessageConsumer, Box) {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let bridge = PageBridge(bus: bus, screen: "HDMI-A-1")
        let box = Box()
        bridge.run = { box.scripts.append($0) }
        return (bridge, consumer, box)
    }

    final class Box { var scripts: [String] = [] }

    @Test func aPermittedRequestGoesThroughTheBusAndItsReplyCarriesThePagesID() throws {
        let (bridge, consumer, box) = try bridge()
        bridge.received(multiscreen: #"{"id": 7, "method": "send", "params": {"text": "hi"}}"#)
        var received: [ReceivedMessage] = []
        consumer.drain { received.append($0) }
        #expect(received.map(\.message) == [.send(text: "hi", screen: nil)])
        received.first?.replyTo?.deliver(.sent(id: 1, screen: nil))
        #expect(box.scripts.count == 1)
        #expect(box.scripts[0].contains(#""id":7"#) && box.scripts[0].contains(#""kind":"reply""#))
        #expect(bridge.counters["enqueued"] == 1)
    }

    @Test func methodsAPageMayNotCallAreRefusedWithoutReachingTheBus() throws {
        let (bridge, consumer, box) = try bridge()
        bridge.received(
            multiscreen: #"{"id": 1, "method": "role.set", "params": {"screen": "X", "role": "controller"}}"#)
        bridge.received(multiscreen: "not json")
        bridge.received(multiscreen: #"{"method": "send", "params": {"text": "x", "colour": "red"}}"#)
        #expect(consumer.drain { _ in } == 0)
        #expect(box.scripts.count == 3)
        #expect(box.scripts[0].contains("\(MessageError.Code.notPermitted.rawValue)"))
        #expect(bridge.counters["notAllowed"] == 1 && bridge.counters["malformed"] == 2)
    }

    @Test func theStarterKitsSendMessageIsASendOfItsText() throws {
        let (bridge, consumer, _) = try bridge()
        bridge.received(sendMessage: "'); alert(1); ('")
        var received: [Message] = []
        consumer.drain { received.append($0.message) }
        #expect(received == [.send(text: "'); alert(1); ('", screen: nil)])
    }

    @Test func whatIsHandedOverWhileHeldGoesInOneScript() throws {
        let (bridge, consumer, box) = try bridge()
        bridge.received(multiscreen: #"{"id": 4, "method": "send", "params": {"text": "hi"}}"#)
        bridge.hold()
        consumer.drain { $0.replyTo?.deliver(.sent(id: 1, screen: nil)) }
        bridge.publish(.messageReceived(id: 1, text: "hi", screen: nil))
        bridge.show(text: "hi", screen: nil)
        #expect(box.scripts.isEmpty)
        #expect(bridge.release())
        #expect(box.scripts.count == 1, "\(box.scripts)")
        let script = box.scripts[0]
        let order = [#""kind":"reply""#, #""kind":"event""#, #""kind":"message""#].map {
            script.range(of: $0)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! }, "\(script)")
        #expect(bridge.counters["delivered"] == 3)
        // Released: the next packet goes at once; nothing held means no script.
        bridge.show(text: "next", screen: nil)
        #expect(box.scripts.count == 2)
        bridge.hold()
        #expect(!bridge.release())
        #expect(box.scripts.count == 2)
    }

    @Test func frameShownIsNotForPages() throws {
        let (bridge, _, box) = try bridge()
        bridge.publish(Event(name: Event.Name.frameShown.rawValue))
        bridge.publish(.cardClosed(id: 1, screen: "HDMI-A-1"))
        #expect(box.scripts.count == 1 && box.scripts[0].contains("card.closed"))
    }

    @Test func whatAPageMayCallFollowsTheOriginItShowsNow() throws {
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let permissions = PagePermissions(byOrigin: ["https://a.example": [.status, .setRole], "file://": []])
        let bridge = PageBridge(bus: bus, screen: "HDMI-A-1", permissions: permissions)
        let box = Box()
        bridge.run = { box.scripts.append($0) }
        var url = "https://a.example/app/main.html"
        bridge.pageURL = { url }
        let setRole = #"{"method": "role.set", "params": {"screen": "X", "role": "controller"}}"#
        bridge.received(multiscreen: setRole)
        bridge.received(multiscreen: #"{"id": 2, "method": "send", "params": {"text": "hi"}}"#)
        var received: [Message] = []
        consumer.drain { received.append($0.message) }
        #expect(received == [.setRole(screen: "X", role: "controller")])
        #expect(box.scripts.count == 1)
        #expect(
            box.scripts[0].contains(
                "send is not permitted to a page from https://a.example (permitted: role.set, status)"),
            "\(box.scripts)")

        // Navigated to a local page: that origin's (empty) grant, the starter kit's sendMessage included.
        url = "file:///srv/app/main.html"
        bridge.received(multiscreen: setRole)
        bridge.received(sendMessage: "hello")
        // Elsewhere: the default.
        url = "https://b.example/"
        bridge.received(multiscreen: setRole)
        bridge.received(sendMessage: "hello")
        received = []
        consumer.drain { received.append($0.message) }
        #expect(received == [.send(text: "hello", screen: nil)])
        #expect(box.scripts[1].contains("role.set is not permitted to a page from file:// (permitted: nothing)"))
        #expect(box.scripts[3].contains("role.set is not permitted to a page from https://b.example"))
        #expect(bridge.counters["notAllowed"] == 4 && bridge.counters["malformed"] == 0, "\(bridge.counters)")
    }
}
