import Outputs

/// Who a monitor is, as opposed to where it is plugged in.
///
/// Roles and content modes are remembered per identity so that a monitor keeps them across unplug and replug,
/// even into another connector. The description (which carries make, model and often the serial on real
/// hardware, e.g. "Dell Inc. DELL U2720Q 5KC0XXX (DP-2)") is the strongest clue; the connector name in it is
/// stripped, because the same monitor on another port is still the same monitor.
public struct OutputIdentity: Hashable, Codable, Sendable, CustomStringConvertible {
    public var make: String
    public var model: String
    /// The description without a trailing connector in parentheses.
    public var description: String

    public init(make: String, model: String, description: String) {
        self.make = make
        self.model = model
        self.description = description
    }

    public init(_ output: OutputInfo) {
        make = output.make
        model = output.model
        var text = output.description ?? ""
        // sway/wlroots descriptions end in " (DP-2)": drop the connector.
        if let name = output.name, text.hasSuffix(" (\(name))") {
            text.removeLast(name.count + 3)
        }
        description = text
    }

    /// A stable string key ("make|model|description") for state files.
    public var key: String { "\(make)|\(model)|\(description)" }
}
