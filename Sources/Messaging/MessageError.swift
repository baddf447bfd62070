/// An error reported to a client as `{"error": {"code": ..., "message": ...}}`.
///
/// Codes follow JSON-RPC 2.0 where it has one, so a client library's expectations hold; the rest are in the
/// implementation-defined server range.
public struct MessageError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, CaseIterable, Sendable {
        /// Not JSON: bad syntax, invalid UTF-8, nesting deeper than Foundation's 512 levels.
        case parseError = -32700
        /// JSON, but not a request: not an object, no string "method", "params" not an object, unknown keys, a
        /// blank line.
        case invalidRequest = -32600
        /// "method" names no method.
        case methodNotFound = -32601
        /// A parameter is missing, has the wrong type, is unknown, or a name is empty or too long; a screen, role or
        /// mode that does not exist.
        case invalidParams = -32602
        /// A text exceeds ``Message/maximumTextBytes``.
        case textTooLong = -32001
        /// The request exceeds ``MessageCodec/maximumRequestBytes`` before parsing.
        case requestTooLarge = -32002
        /// The ring to the display thread is full, or every connection is taken; try again later. Nothing was done.
        case busy = -32003
        /// This client may not do this: its uid is not the allowed one, or the method is not granted to its kind of
        /// connection.
        case notPermitted = -32004
        /// A well-formed request the current state refuses: no card is open there, the change would leave no
        /// controller, a message aimed at the controller's screen (which shows no messages).
        case refused = -32005
        /// An image or a video that cannot be shown: no such file, not a file, not media Multiscreen decodes (the
        /// missing decoder named), corrupt, or larger than the limits. The screen keeps what it showed.
        case mediaFailed = -32006

        /// The case's name, as `multiscreen` prints it beside the number. Spelt out rather than reflected
        /// (`"\(code)"`): reflection scans every protocol conformance in the binary, and the CLI's help text,
        /// built at every start, lists every code.
        public var name: String {
            switch self {
            case .parseError: "parseError"
            case .invalidRequest: "invalidRequest"
            case .methodNotFound: "methodNotFound"
            case .invalidParams: "invalidParams"
            case .textTooLong: "textTooLong"
            case .requestTooLarge: "requestTooLarge"
            case .busy: "busy"
            case .notPermitted: "notPermitted"
            case .refused: "refused"
            case .mediaFailed: "mediaFailed"
            }
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue) \(code.name): \(message)" }
}
