import Foundation
import Messaging

/// `screen.identify`: every screen shows its name, mode and role over its content for a few seconds, so whoever
/// wires a wall can tell which connector drives which panel. Nothing is saved, nothing is logged as a message: the
/// names go by themselves (``nextExpiry``) and every screen shows what it showed before.
extension ProductController {
    /// What each screen shows while identifying: its connector name, its make and model, its mode, and its role.
    public struct ScreenIdentity: Equatable, Sendable {
        public var name: String
        public var details: [String]
    }

    /// `screen.identify`: starts (or extends) showing every screen's identity for `seconds`.
    mutating func identifyScreens(for seconds: Double, now: Date = Date()) -> Outcome {
        let until = now.addingTimeInterval(seconds)
        identifyingUntil = max(identifyingUntil ?? until, until)
        logger.info("identifying \(outputs.count) screens for \(seconds) s")
        var outcome = Outcome(
            reply: .result(
                method: .identifyScreens,
                result: [
                    "screens": .array(outputs.map { .string($0.displayName) }), "seconds": .number(seconds),
                ]))
        outcome.changes.everyScreen = true
        outcome.changes.controllerUI = true
        return outcome
    }

    /// Ends identifying once its time is up (called with the message expiries).
    mutating func endIdentifying(now: Date) -> Outcome {
        var outcome = Outcome()
        guard let until = identifyingUntil, until <= now else { return outcome }
        identifyingUntil = nil
        outcome.changes.everyScreen = true
        outcome.changes.controllerUI = true
        return outcome
    }

    /// What the screen on this output shows over its content now, nil when not identifying.
    public func identity(of registryName: UInt32) -> ScreenIdentity? {
        guard identifyingUntil != nil, let output = outputs.first(where: { $0.registryName == registryName }) else {
            return nil
        }
        var details: [String] = []
        let maker = [output.make, output.model].filter { !$0.isEmpty }.joined(separator: " ")
        if !maker.isEmpty { details.append(maker) }
        details.append(output.modeText + (output.scale > 1 ? ", scale \(output.scale)" : ""))
        details.append(model.assignment.controller == registryName ? "controller" : "external")
        return ScreenIdentity(name: output.displayName, details: details)
    }
}
