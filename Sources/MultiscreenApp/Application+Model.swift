import Foundation
import Logging
import Messaging
import Screens

/// Roles, content modes, cards and the state file.
extension Application {
    /// Loads the config and the restored state. Neither can stop Multiscreen: a broken config is reported and
    /// the defaults used; a corrupt state file is set aside by ``StateStore`` and reported.
    static func loadModel(options: Application.Options, logger: Logger) -> (ScreenModel, StateStore) {
        let configPath = options.configPath ?? RoleConfig.defaultPath()
        var config = RoleConfig()
        do {
            config = try RoleConfig.load(path: configPath)
            if !config.rules.isEmpty { logger.info("config \(configPath): \(config.rules.count) role rules") }
        } catch {
            logger.error("config \(configPath) not used: \(error)")
        }
        let store = StateStore(path: options.statePath ?? StateStore.defaultPath())
        let loaded = store.load()
        if let warning = loaded.warning { logger.error("\(warning)") }
        logger.info(
            "state \(store.path): \(loaded.state.cards.count) cards, \(loaded.state.messages.count) messages restored")
        return (ScreenModel(config: config, state: loaded.state), store)
    }

    /// Puts an assignment into effect: each screen's kind, and everything that depends on it redrawn.
    func apply(_ update: (assignment: Assignment, returnedCards: [Card])) {
        for card in update.returnedCards {
            logger.info("card #\(card.id) returned to the controller's list: its screen went away")
            stateChanged = true
        }
        apply(update.assignment)
    }

    func apply(_ assignment: Assignment) {
        for change in assignment.changes {
            logger.info("role change: \(change)")
            publish(change)
            stateChanged = true
        }
        for warning in assignment.warnings { logger.warning("\(warning)") }
        for (name, screen) in screens {
            let kind: Screen.Kind =
                assignment.controller == name ? .controller : .external(assignment.contents[name] ?? .messages)
            screen.kind = kind
        }
        seat?.refreshCursor()
        controllerDirty = true
    }

    /// Writes the state file (atomic: write, fsync, rename), at most once per ``Application/saveDelay``.
    func saveStateIfChanged() {
        guard stateChanged else { return }
        stateChanged = false
        do {
            try store.save(model.persistentState)
        } catch {
            logger.error("\(error)")
        }
    }

    /// The rows of the controller's screens list, in output order.
    var screenRows: [ControllerScene.Row] {
        tracker.outputs.map { info in
            let kind = screens[info.registryName]?.kind
            let role: String
            switch kind {
            case .controller?: role = "controller"
            case .external(let mode)?: role = "external · \(mode.rawValue)"
            case nil: role = "opening"
            }
            let scale = info.scale > 1 ? " @\(info.scale)x" : ""
            let drawn = screens[info.registryName]?.hasCommitted == true || spanningHost != nil
            let state = drawn ? "" : " · waiting"
            return ControllerScene.Row(
                name: info.displayName, detail: "\(role) · \(info.modeWidth)×\(info.modeHeight)\(scale)\(state)",
                isController: kind == .controller)
        }
    }
}

extension Application {
    /// Role changes are events: subscribers of the control socket (`multiscreen events`) receive each as a line.
    func publish(_ change: RoleChange) {
        func name(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        switch change {
        case .role(let output, let from, let to):
            publishEvent(
                "role.changed", ["screen": .string(output), "from": name(from?.rawValue), "to": name(to?.rawValue)])
        case .controllerMoved(let from, let to, let standIn):
            publishEvent("controller.moved", ["from": name(from), "to": name(to), "standIn": .bool(standIn)])
        case .content(let output, let from, let to):
            publishEvent(
                "content.changed", ["screen": .string(output), "from": name(from?.rawValue), "to": name(to?.rawValue)])
        }
    }

    /// Sends an event to the control socket's subscribers (free when there are none).
    func publishEvent(_ name: String, _ params: [String: JSONValue]) {
        guard let control, control.hasSubscribers else { return }
        control.publish(MessageCodec.encodeEvent(name: name, params: params))
    }
}
