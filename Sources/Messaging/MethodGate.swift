/// Which methods one producer's clients may call, decided where the producer is built (from the config), and the one
/// refusal every transport gives for the others: `notPermitted` (-32004), worded the same whether a phone, the fleet
/// link or a page asked. A method a transport answers itself (`events.subscribe`) goes through the same gate.
public struct MethodGate: Sendable, Equatable {
    /// Who is asking, as the refusal names it: "a phone", "the fleet link", "a page from https://example.org".
    public var caller: String
    public var permitted: Set<MessageMethod>

    /// `permitted` less the methods only the local socket may call (``MessageMethod/isLocalOnly``): whatever a
    /// config grants, a remote caller never names a file on the kiosk.
    public init(caller: String, permitted: Set<MessageMethod>) {
        self.caller = caller
        self.permitted = permitted.filter { !$0.isLocalOnly }
    }

    /// - Throws: `notPermitted`, naming the method and what this caller may call instead.
    public func check(_ method: MessageMethod) throws(MessageError) {
        guard !permitted.contains(method) else { return }
        if method.isLocalOnly {
            throw MessageError(
                .notPermitted,
                "\(method.rawValue) is not permitted to \(caller): it names a file on the kiosk, which only the local socket may"
            )
        }
        let list = permitted.filter { !$0.isInternal }.map(\.rawValue).sorted().joined(separator: ", ")
        throw MessageError(
            .notPermitted,
            "\(method.rawValue) is not permitted to \(caller) (permitted: \(list.isEmpty ? "nothing" : list))")
    }
}
