/// Which methods one producer's clients may call, decided where the producer is built (from the config), and the one
/// refusal every transport gives for the others: `notPermitted` (-32004), worded the same whether a phone, the fleet
/// link or a page asked. A method a transport answers itself (`events.subscribe`) goes through the same gate.
public struct MethodGate: Sendable, Equatable {
    /// Who is asking, as the refusal names it: "a phone", "the fleet link", "a page from https://example.org".
    public var caller: String
    public var permitted: Set<MessageMethod>
    /// Where the methods that name files (``MessageMethod/isLocalOnly``) may name them; nil: they are never
    /// permitted, whatever the config grants.
    public var files: MediaDirectories?

    /// Without `files`, `permitted` less the methods that name a file on the kiosk: a remote caller names files only
    /// inside directories the config gave it.
    public init(caller: String, permitted: Set<MessageMethod>, files: MediaDirectories? = nil) {
        self.caller = caller
        self.permitted = files == nil ? permitted.filter { !$0.isLocalOnly } : permitted
        self.files = files
    }

    /// The method, then every file the message names.
    public func check(_ message: Message) throws(MessageError) {
        try check(message.method)
        if message.writesFiles {
            throw MessageError(
                .notPermitted,
                "\(message.method.rawValue) with \"path\" is not permitted to \(caller): it writes a file on the kiosk, which only the local socket may (without \"path\" the picture comes back in the reply)"
            )
        }
        guard let files else {
            // A method granted whose other form names files (an interrupt with items of its own rather than a
            // config playlist's name): that form is the local socket's alone, as `playlist.set` is.
            if message.namesFiles {
                throw MessageError(
                    .notPermitted,
                    "\(message.method.rawValue) with \"items\" is not permitted to \(caller): they name files on the kiosk, which only the local socket may (a config playlist, by \"playlist\", may be named)"
                )
            }
            return
        }
        for path in MediaDirectories.paths(in: message) { try files.check(path, caller: caller) }
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
