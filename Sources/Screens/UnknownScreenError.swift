/// A request named a screen (output name) that is not connected. Carries the known names so that the message
/// tells the user what they could have typed.
public struct UnknownScreenError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    /// Names of the connected outputs, in output order.
    public var known: [String]

    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }

    public var description: String {
        let list = known.isEmpty ? "none connected" : "known: \(known.joined(separator: ", "))"
        return "unknown screen '\(name)' (\(list))"
    }
}
