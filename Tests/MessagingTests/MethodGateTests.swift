import Messaging
import Testing

@Suite struct MethodGateTests {
    @Test func oneRefusalWhateverTheTransport() {
        let gate = MethodGate(caller: "a phone", permitted: [.send, .status])
        #expect(throws: Never.self) { try gate.check(.send) }
        #expect(throws: MessageError(.notPermitted, "role.set is not permitted to a phone (permitted: send, status)")) {
            try gate.check(.setRole)
        }
        #expect(throws: MessageError(.notPermitted, "events.subscribe is not permitted to a page (permitted: nothing)"))
        {
            try MethodGate(caller: "a page", permitted: []).check(.subscribeEvents)
        }
    }
}
