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

    /// A file on the kiosk is named only through the local socket: a config that grants `media.show` (or `media.*`)
    /// to the fleet, a phone or a page grants `media.stop` alone.
    @Test func mediaShowIsNeverGrantedToARemoteCaller() {
        let gate = MethodGate(caller: "the fleet link", permitted: [.showMedia, .stopMedia])
        #expect(gate.permitted == [.stopMedia])
        #expect(
            throws: MessageError(
                .notPermitted,
                "media.show is not permitted to the fleet link: it names a file on the kiosk, which only the local socket may"
            )
        ) { try gate.check(.showMedia) }
        #expect(throws: Never.self) { try gate.check(.stopMedia) }
    }
}
