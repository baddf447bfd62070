/// What a screen is for. `controller` shows the interactive control UI, `external` a passive display of what the
/// controller sends; other names ("instrument-cluster", "rear-seat") are roles a config may define later and are
/// treated as external until something gives them a meaning.
public struct ScreenRole: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let controller = ScreenRole(rawValue: "controller")
    public static let external = ScreenRole(rawValue: "external")

    public var isController: Bool { self == .controller }
    public var description: String { rawValue }

    /// A role name is a lowercase word with dashes: what a config file or `multiscreen role set` may use.
    public static func validated(_ name: String) -> ScreenRole? {
        guard !name.isEmpty, name.count <= 64,
            name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
        else { return nil }
        return ScreenRole(rawValue: name)
    }
}
