import Outputs

/// Decides which screen is the controller and what every other screen shows, each time the outputs change or a
/// role or content mode is set at run time.
///
/// An output's own role comes, in priority order, from (1) ``memory`` (set at run time for this monitor's
/// identity, so it survives replugging into another connector and, through the state file, restarts), (2) the
/// first matching config rule, (3) nothing: such an output is external, unless no output claims the controller
/// at all, in which case the first unclaimed output is the controller (with no config, "the first output is the
/// controller"). That default choice sticks to the monitor for the life of the assigner, so that unplugging and
/// replugging it (even into a connector that sorts later) gives it the controller UI back; it is not written to
/// ``memory``, so the state file never turns a default into a rule.
///
/// Exactly one screen shows the controller UI. When several outputs claim `controller`, the first in output order
/// wins and the others show as external, with a warning. When the preferred controller's output is gone,
/// ``RoleConfig/fallback`` decides: `first` lets the first remaining output stand in (not remembered: it is not
/// its role), `none` leaves no controller UI. When the preferred output returns, the UI moves back, unless
/// ``RoleConfig/returnsToPreferred`` is false: then the stand-in keeps it until it goes away itself or a controller
/// is set explicitly.
///
/// The display thread owns one, calls ``assign(_:)`` after every output change (after the initial roundtrip,
/// so that the first choice sees all outputs) and publishes ``Assignment/changes``.
public struct RoleAssigner: Sendable {
    public private(set) var config: RoleConfig
    /// What was set at run time, per identity: the caller saves it in the state file.
    public private(set) var memory: ScreenMemory
    /// The latest assignment (its ``Assignment/changes`` are those of the latest call).
    public private(set) var assignment = Assignment()
    /// The outputs of the latest ``assign(_:)``, in natural name order.
    public private(set) var outputs: [OutputInfo] = []

    /// Identity key of the monitor chosen by the default rule (3), kept while no claim overrides it.
    private var defaultController: String?
    /// The output standing in for a missing preferred controller, if any.
    private var standIn: UInt32?

    public init(config: RoleConfig = RoleConfig(), memory: ScreenMemory = ScreenMemory()) {
        self.config = config
        self.memory = memory
    }

    /// Recomputes the assignment for the current outputs (any order: sorted here by natural name order).
    @discardableResult
    public mutating func assign(_ outputs: [OutputInfo]) -> Assignment {
        let outputs = outputs.sorted { $0.displayName.naturalOrder($1.displayName) }
        let keys = outputs.map { OutputIdentity($0).key }
        let rules = outputs.map { config.rule(for: $0) }
        let claims = outputs.indices.map { memory.roles[keys[$0]] ?? rules[$0]?.role }
        var warnings = Self.sharedIdentityWarnings(outputs, keys)
        var overrides: [String] = []
        for index in outputs.indices {
            if let remembered = memory.roles[keys[index]], let rule = rules[index], rule.role != remembered {
                overrides.append(
                    "\(outputs[index].displayName): the role set at run time (\(remembered)) overrides the config "
                        + "rule (\(rule.role)); `multiscreen role reset \(outputs[index].displayName)` forgets it")
            }
        }

        // The preferred controller: the first explicit claim, else the default rule's sticky choice.
        let claimants = outputs.indices.filter { claims[$0] == .controller }
        var preferred = claimants.first
        var preferredIsGone = false
        if claimants.count > 1 {
            let others = claimants.dropFirst().map { outputs[$0].displayName }.joined(separator: ", ")
            warnings.append(
                "\(others) also claim\(claimants.count == 2 ? "s" : "") the controller role; "
                    + "\(outputs[claimants[0]].displayName) (first in output order) is the controller, "
                    + "the others show as external")
        }
        if preferred == nil {
            let present = Set(keys)
            let remembered = memory.roles.contains { $0.value == .controller && !present.contains($0.key) }
            let ruled = config.rules.contains { rule in
                rule.role == .controller && !outputs.contains { rule.match.matches($0) }
            }
            if remembered || ruled {
                preferredIsGone = true
            } else {
                if let chosen = defaultController {
                    if let index = keys.firstIndex(of: chosen) {
                        if claims[index] == nil { preferred = index } else { defaultController = nil }
                    } else {
                        preferredIsGone = true
                    }
                }
                if preferred == nil && !preferredIsGone, let first = claims.firstIndex(where: { $0 == nil }) {
                    preferred = first
                    defaultController = keys[first]
                }
            }
        }

        // Who shows the controller UI.
        let standInIndex = standIn.flatMap { id in outputs.firstIndex { $0.registryName == id } }
        var controller: Int?
        var isStandIn = false
        if let preferred {
            if let standInIndex, standInIndex != preferred, !config.returnsToPreferred {
                controller = standInIndex
                isStandIn = true
            } else {
                controller = preferred
            }
        } else if preferredIsGone && config.fallback == .first && !outputs.isEmpty {
            controller = standInIndex ?? 0
            isStandIn = true
        }
        standIn = isStandIn ? controller.map { outputs[$0].registryName } : nil

        var next = Assignment(controller: controller.map { outputs[$0].registryName }, controllerIsStandIn: isStandIn)
        for index in outputs.indices {
            let id = outputs[index].registryName
            if index == controller {
                next.roles[id] = .controller
                continue
            }
            let role = claims[index] ?? .external
            next.roles[id] = role.isController ? .external : role
            next.contents[id] = memory.contents[keys[index]] ?? rules[index]?.content ?? .messages
        }
        next.warnings = warnings
        next.overrides = overrides
        next.changes = changes(
            from: assignment, Self.names(self.outputs), to: next, Self.names(outputs),
            order: outputs.map(\.registryName))
        assignment = next
        self.outputs = outputs
        return next
    }

    /// Sets the role of the connected output named `name` (remembered for its monitor) and reassigns.
    ///
    /// Setting `controller` demotes every other controller, remembered or by rule, to `external` and remembers
    /// that, so that exactly one claim remains; it also ends any stand-in.
    @discardableResult
    public mutating func set(role: ScreenRole, forOutputNamed name: String) throws(UnknownScreenError) -> Assignment {
        let output = try self.output(named: name)
        let key = OutputIdentity(output).key
        if role.isController {
            for (other, remembered) in memory.roles where remembered.isController && other != key {
                memory.roles[other] = .external
            }
            for other in outputs where other.registryName != output.registryName {
                let otherKey = OutputIdentity(other).key
                let claimsController =
                    other.registryName == assignment.controller || config.rule(for: other)?.role == .controller
                if claimsController && otherKey != key { memory.roles[otherKey] = .external }
            }
            defaultController = nil
        }
        standIn = nil
        memory.roles[key] = role
        return assign(outputs)
    }

    /// Forgets the role and content mode set at run time for the output named `name` (nil: for every monitor,
    /// connected or not), so the config's rules and the default apply again, and reassigns.
    @discardableResult
    public mutating func reset(forOutputNamed name: String?) throws(UnknownScreenError) -> Assignment {
        if let name {
            let key = OutputIdentity(try output(named: name)).key
            memory.roles[key] = nil
            memory.contents[key] = nil
        } else {
            memory = ScreenMemory()
        }
        defaultController = nil
        standIn = nil
        return assign(outputs)
    }

    /// Takes a new config (SIGHUP reloads the file) and reassigns; what was set at run time still applies.
    @discardableResult
    public mutating func replace(config: RoleConfig) -> Assignment {
        self.config = config
        return assign(outputs)
    }

    /// The roles a screen may be given: `controller`, `external`, and every role the config's rules name (the
    /// in-vehicle kind: `instrument-cluster`, `rear-seat`).
    public var knownRoles: [ScreenRole] {
        var known: [ScreenRole] = [.controller, .external]
        for rule in config.rules where !known.contains(rule.role) { known.append(rule.role) }
        return known
    }

    /// Sets what the output named `name` shows when it is not the controller (remembered for its monitor).
    @discardableResult
    public mutating func set(content: ContentMode, forOutputNamed name: String) throws(UnknownScreenError)
        -> Assignment
    {
        let output = try self.output(named: name)
        memory.contents[OutputIdentity(output).key] = content
        return assign(outputs)
    }

    /// The connected output called `name` (its ``OutputInfo/displayName``).
    public func output(named name: String) throws(UnknownScreenError) -> OutputInfo {
        guard let output = outputs.first(where: { $0.displayName == name }) else {
            throw UnknownScreenError(name: name, known: outputs.map(\.displayName))
        }
        return output
    }

    /// Display name per registry name.
    private static func names(_ outputs: [OutputInfo]) -> [UInt32: String] {
        Dictionary(uniqueKeysWithValues: outputs.map { ($0.registryName, $0.displayName) })
    }

    private static func sharedIdentityWarnings(_ outputs: [OutputInfo], _ keys: [String]) -> [String] {
        var seen: [String: String] = [:]
        var warnings: [String] = []
        for (output, key) in zip(outputs, keys) {
            if let first = seen[key] {
                warnings.append(
                    "\(first) and \(output.displayName) look like the same monitor (\(key)): "
                        + "a role or mode set for one applies to both")
            } else {
                seen[key] = output.displayName
            }
        }
        return warnings
    }

    private func changes(
        from old: Assignment, _ oldNames: [UInt32: String], to new: Assignment, _ newNames: [UInt32: String],
        order: [UInt32]
    ) -> [RoleChange] {
        let gone = oldNames.keys.filter { newNames[$0] == nil }.sorted { oldNames[$0]!.naturalOrder(oldNames[$1]!) }
        var changes: [RoleChange] = []
        for id in order where old.roles[id] != new.roles[id] {
            changes.append(.role(output: newNames[id]!, from: old.roles[id], to: new.roles[id]))
        }
        for id in gone {
            changes.append(.role(output: oldNames[id]!, from: old.roles[id], to: nil))
        }
        if old.controller != new.controller {
            changes.append(
                .controllerMoved(
                    from: old.controller.flatMap { oldNames[$0] }, to: new.controller.flatMap { newNames[$0] },
                    standIn: new.controllerIsStandIn))
        }
        for id in order where old.contents[id] != new.contents[id] {
            changes.append(.content(output: newNames[id]!, from: old.contents[id], to: new.contents[id]))
        }
        return changes
    }
}
