import Messaging
import Outputs
import Screens

/// Roles and content modes: what each output is for, set at run time or by the config's rules, reassigned as
/// outputs come and go.
extension ProductController {
    /// `role.set`: refused when it would leave no screen showing the controller UI, unless `force`.
    mutating func setRole(screen: String, role roleName: String, force: Bool) throws(MessageError) -> Outcome {
        let before = model.assignment
        let known = model.roles.knownRoles
        guard let role = known.first(where: { $0.rawValue == roleName }) else {
            throw MessageError(
                .invalidParams,
                "unknown role \"\(roleName.logSafe)\" (known: \(known.map(\.rawValue).joined(separator: ", ")); "
                    + "other roles are declared by naming them in a config rule)")
        }
        var trial = model
        _ = try invalidParams { () throws(UnknownScreenError) in try trial.set(role: role, forScreen: screen) }
        if trial.assignment.controller == nil && model.assignment.controller != nil && !force {
            throw MessageError(
                .refused,
                "\(screen) would no longer show the controller UI and no other screen would: refused (add "
                    + "\"force\": true, or --force, to do it anyway)")
        }
        model = trial
        var outcome = Outcome(reply: .roleSet(screen: screen, role: role.rawValue))
        absorbReassignment(since: before, into: &outcome)
        return saving(outcome)
    }

    /// `role.reset`: what was set at run time is forgotten, for one screen or every one.
    mutating func resetRole(screen: String?) throws(MessageError) -> Outcome {
        let assignment = try invalidParams { () throws(UnknownScreenError) in
            try model.resetRole(forScreen: screen)
        }
        logger.info("roles and modes set at run time forgotten for \(screen ?? "every monitor")")
        var outcome = Outcome(reply: .roleReset(screen: screen))
        absorb(assignment, into: &outcome)
        outcome.changes.state = true
        return saving(outcome)
    }

    /// `content.set`: what an external screen shows.
    mutating func setContent(screen: String, mode modeName: String) throws(MessageError) -> Outcome {
        guard let mode = ContentMode(rawValue: modeName) else {
            let modes = ContentMode.allCases.map(\.rawValue).joined(separator: ", ")
            throw MessageError(.invalidParams, "unknown content mode \"\(modeName.logSafe)\" (known: \(modes))")
        }
        let assignment = try invalidParams { () throws(UnknownScreenError) in
            try model.set(content: mode, forScreen: screen)
        }
        var outcome = Outcome(reply: .contentSet(screen: screen, mode: mode.rawValue))
        absorb(assignment, into: &outcome)
        return saving(outcome)
    }

    // MARK: - Outputs

    /// The set of complete outputs changed (any order): reassigns roles; cards of screens that went away return
    /// to the waiting list.
    public mutating func outputsChanged(_ outputs: [OutputInfo]) -> Outcome {
        let power = powerByScreen
        let update = model.update(outputs: outputs)
        var outcome = Outcome()
        reportPower(since: power, into: &outcome)
        for card in update.returnedCards {
            logger.info("card #\(card.id) returned to the controller's list: its screen went away")
            outcome.events.append(.cardReturned(id: card.id))
            outcome.changes.state = true
        }
        absorb(update.assignment, into: &outcome)
        // The screens list shows every output: any change redraws the controller.
        outcome.changes.controllerUI = true
        return saving(outcome)
    }
}
