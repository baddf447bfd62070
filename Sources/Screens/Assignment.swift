/// Which screen does what, as decided by ``RoleAssigner`` for one set of outputs.
public struct Assignment: Equatable, Sendable {
    /// Effective role per output (registry name): exactly one `controller` when ``controller`` is set, none
    /// otherwise. A stand-in controller shows `controller` here although its remembered role is not.
    public var roles: [UInt32: ScreenRole]
    /// The output (registry name) that shows the controller UI; nil with no outputs, or while the preferred
    /// controller is gone under `fallback = "none"`, or when every output is explicitly something else.
    public var controller: UInt32?
    /// Whether ``controller`` only stands in for a preferred controller whose output is gone.
    public var controllerIsStandIn: Bool
    /// Content mode of every output that is not the controller.
    public var contents: [UInt32: ContentMode]
    /// What changed since the previous assignment, in a stable order (roles, then controller, then contents).
    public var changes: [RoleChange]
    /// Things the caller should log: conflicting controller claims, monitors that share an identity.
    public var warnings: [String]
    /// Roles set at run time that override a config rule: not wrong, but an installer editing the config should
    /// know why the rule seems ignored.
    public var overrides: [String] = []

    public init(
        roles: [UInt32: ScreenRole] = [:], controller: UInt32? = nil, controllerIsStandIn: Bool = false,
        contents: [UInt32: ContentMode] = [:], changes: [RoleChange] = [], warnings: [String] = []
    ) {
        self.roles = roles
        self.controller = controller
        self.controllerIsStandIn = controllerIsStandIn
        self.contents = contents
        self.changes = changes
        self.warnings = warnings
    }
}
