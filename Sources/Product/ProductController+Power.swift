import Screens

/// Screens turned off and on by their schedules: what a step changed is reported once, as `power.changed`, and the
/// screens concerned redraw (black going off, their content coming back).
extension ProductController {
    /// Each connected screen's power, by name: taken before a step, given to ``reportPower(since:into:)`` after it.
    var powerByScreen: [String: ScreenPower] {
        Dictionary(uniqueKeysWithValues: outputs.map { ($0.displayName, model.power(of: $0.registryName)) })
    }

    /// The events and redraws of the screens whose power differs from `before` (a screen new since then counts as on
    /// before: one plugged in at night is reported off).
    func reportPower(since before: [String: ScreenPower], into outcome: inout Outcome) {
        for output in outputs {
            let power = model.power(of: output.registryName)
            guard power != before[output.displayName] ?? .on else { continue }
            logger.info("\(output.displayName): \(power.rawValue) by its schedule")
            outcome.events.append(.powerChanged(screen: output.displayName, power: power.rawValue))
            outcome.changes.screens.insert(output.displayName)
        }
    }
}
