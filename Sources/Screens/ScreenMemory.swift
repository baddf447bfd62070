/// Roles and content modes set at run time (`multiscreen role set`, the controller UI), per monitor identity.
///
/// Keyed by ``OutputIdentity/key`` rather than connector name so that a monitor keeps what was set for it across
/// unplug and replug, also into another connector. It beats the config file's rules, and is what the state file
/// restores after a restart.
public struct ScreenMemory: Equatable, Sendable, Codable {
    public var roles: [String: ScreenRole]
    public var contents: [String: ContentMode]

    public init(roles: [String: ScreenRole] = [:], contents: [String: ContentMode] = [:]) {
        self.roles = roles
        self.contents = contents
    }
}
