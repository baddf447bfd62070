import Foundation
import Messaging
import Outputs
import Screens

/// `schedule.show` and `schedule.set`: which `[[schedule]]` each screen follows, what it asks for now, and choosing
/// another at run time. Schedules themselves are the config's; at run time a screen only chooses among them.
extension ProductController {
    /// `schedule.show`: for every connected screen (or `screen`), its schedule, where that choice comes from, what it
    /// asks for now and when that next changes.
    func showSchedule(screen: String?) throws(MessageError) -> Outcome {
        let shown = try screen.map { name throws(MessageError) in [try connected(name)] } ?? outputs
        let now = Date()
        let screens: [JSONValue] = shown.map { output in
            var entry: [String: JSONValue] = ["screen": .string(output.displayName)]
            guard let name = model.scheduleName(of: output), let schedule = model.schedule(of: output) else {
                entry["schedule"] = .null
                return .object(entry)
            }
            entry["schedule"] = .string(name)
            entry["from"] = .string(model.schedules[output.displayName] != nil ? "set" : "rule")
            entry["now"] = Self.json(model.scheduled[output.displayName])
            entry["next"] =
                schedule.nextChange(after: now, in: model.timeZone).map { .number($0.timeIntervalSince1970) } ?? .null
            return .object(entry)
        }
        return Outcome(
            reply: .result(
                method: .showSchedule,
                result: ["screens": .array(screens), "timeZone": .string(model.timeZone.identifier)]))
    }

    /// `schedule.set`: the screen follows the config's schedule `name` (nil: its rule's again) from now on; what that
    /// asks for now shows at once.
    mutating func setSchedule(screen: String, name: String?) throws(MessageError) -> Outcome {
        let before = model.assignment
        let output = try connected(screen)
        if let name, model.roles.config.schedules[name]?.namesPlaylists == true {
            try refuseController(screen, for: "playlists")
        }
        let schedules = scheduleChoices
        let chosen = try invalidParams { () throws(UnknownScreenError) in
            try model.choose(schedule: name, onScreen: screen)
        }
        guard chosen else {
            let known = model.roles.config.schedules.keys.sorted().joined(separator: ", ")
            throw MessageError(
                .refused,
                "no [[schedule]] named \"\(name?.logSafe ?? "")\" in the config (known: \(known.isEmpty ? "none" : known))"
            )
        }
        logger.info("\(screen) follows \(name.map { "schedule \($0)" } ?? "its rule's schedule") now")
        var outcome = advancePlaylists(now: Date(), schedulesBefore: schedules)
        outcome.reply = .result(
            method: .setSchedule,
            result: [
                "screen": .string(screen), "schedule": model.scheduleName(of: output).map(JSONValue.string) ?? .null,
                "now": Self.json(model.scheduled[screen]),
            ])
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens.insert(screen)
        return saving(outcome)
    }

    /// The `schedule.changed` events of the screens whose schedule, or what it asks for, differs from `before`.
    func reportSchedules(since before: [String: ScheduleChoice], at time: Date, into outcome: inout Outcome) {
        for output in outputs {
            let now = scheduleChoice(of: output)
            guard now != before[output.displayName] ?? ScheduleChoice(name: nil, slot: nil) else { continue }
            outcome.events.append(
                .scheduleChanged(
                    screen: output.displayName, schedule: now.name, now: Self.json(now.slot),
                    next: model.schedule(of: output)?.nextChange(after: time, in: model.timeZone)?
                        .timeIntervalSince1970))
        }
    }

    /// Every connected screen's schedule and what it asks for now (``reportSchedules(since:into:)``).
    var scheduleChoices: [String: ScheduleChoice] {
        Dictionary(uniqueKeysWithValues: outputs.map { ($0.displayName, scheduleChoice(of: $0)) })
    }

    private func scheduleChoice(of output: OutputInfo) -> ScheduleChoice {
        ScheduleChoice(name: model.scheduleName(of: output), slot: model.scheduled[output.displayName])
    }

    /// What a schedule asks for, on the wire: `{"playlist": NAME}`, `"off"`, or null (nothing: the screen shows its
    /// mode's content).
    static func json(_ slot: Schedule.Slot?) -> JSONValue {
        switch slot {
        case .playlist(let name): .object(["playlist": .string(name)])
        case .off: .string("off")
        case nil: .null
        }
    }
}

/// A screen's schedule and what it asks for, to tell when either changed.
struct ScheduleChoice: Equatable {
    var name: String?
    var slot: Schedule.Slot?
}
