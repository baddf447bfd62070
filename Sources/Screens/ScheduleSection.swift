import Outputs
import TOMLKit

/// One `[[schedule]]` of the config: its `name`, the `fallback` playlist, and its `periods`, each playing a playlist or
/// turning the screen off:
///
/// ```toml
/// [[schedule]]
/// name = "menu-board"
/// fallback = "menu"
/// periods = [
///   { playlist = "breakfast", from = "06:00", until = "11:00" },
///   { playlist = "lunch", days = ["mon", "tue", "wed", "thu", "fri"], from = "11:00", until = "15:00" },
///   { playlist = "promo", days = ["sat", "sun"], priority = 1 },
///   { playlist = "christmas", first_day = "2026-12-24", last_day = "2026-12-26", priority = 5 },
///   { power = "off", from = "23:00", until = "06:00", priority = 9 },
/// ]
/// ```
enum ScheduleSection {
    static let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    static func parse(_ table: TOMLTable, path: String, playlists: [String: Playlist]) throws(RoleConfigError)
        -> (String, Schedule)
    {
        try RoleConfig.checkKeys(table, path: path, allowed: ["name", "fallback", "periods"])
        let name = try text(table, "name", path)
        let fallback = try table["fallback"] == nil ? nil : text(table, "fallback", path)
        if let fallback { try known(fallback, "\(path).fallback", playlists) }
        var periods: [Schedule.Period] = []
        if let value = table["periods"] {
            guard let array = value.array, array.allSatisfy({ $0.table != nil }) else {
                throw .wrongType(file: nil, key: "\(path).periods", expected: "an array of { playlist = …, … } tables")
            }
            for index in 0..<array.count {
                periods.append(try period(array[index].table!, path: "\(path).periods[\(index + 1)]", playlists))
            }
        }
        return (name, Schedule(periods: periods, fallback: fallback))
    }

    private static func period(_ table: TOMLTable, path: String, _ playlists: [String: Playlist])
        throws(RoleConfigError) -> Schedule.Period
    {
        try RoleConfig.checkKeys(
            table, path: path,
            allowed: ["playlist", "power", "days", "from", "until", "first_day", "last_day", "priority"])
        var period = Schedule.Period(try slot(table, path, playlists))
        if let days = table["days"] {
            guard let array = days.array else {
                throw .wrongType(file: nil, key: "\(path).days", expected: "an array such as [\"sat\", \"sun\"]")
            }
            for index in 0..<array.count {
                guard let day = array[index].string, let number = weekdays.firstIndex(of: day.lowercased()) else {
                    throw .invalidValue(
                        file: nil, key: "\(path).days", value: array[index].string ?? "…",
                        reason: "expected some of: \(weekdays.joined(separator: ", "))")
                }
                period.weekdays.insert(number + 1)
            }
        }
        if table["from"] != nil { period.from = try minutes(table, "from", path) }
        if table["until"] != nil { period.until = try minutes(table, "until", path) }
        for key in ["first_day", "last_day"] where table[key] != nil {
            let day = try text(table, key, path)
            let parts = day.split(separator: "-")
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                parts.allSatisfy({ $0.allSatisfy(\.isNumber) }), (1...12).contains(Int(parts[1])!),
                (1...31).contains(Int(parts[2])!)
            else {
                throw .invalidValue(file: nil, key: "\(path).\(key)", value: day, reason: "a day as yyyy-mm-dd")
            }
            if key == "first_day" { period.firstDay = day } else { period.lastDay = day }
        }
        if let priority = table["priority"] {
            guard let value = priority.int else {
                throw .wrongType(file: nil, key: "\(path).priority", expected: "a whole number")
            }
            period.priority = value
        }
        return period
    }

    /// `playlist = NAME` (a `[[playlist]]`), or `power = "off"`: one of the two.
    private static func slot(_ table: TOMLTable, _ path: String, _ playlists: [String: Playlist])
        throws(RoleConfigError) -> Schedule.Slot
    {
        switch (table["playlist"], table["power"]) {
        case (.some, .some):
            throw .invalidValue(
                file: nil, key: "\(path).power", value: try text(table, "power", path),
                reason: "a period either plays a playlist or turns the screen off, not both")
        case (.some, nil):
            let name = try text(table, "playlist", path)
            try known(name, "\(path).playlist", playlists)
            return .playlist(name)
        case (nil, .some):
            let power = try text(table, "power", path)
            guard power == "off" else {
                throw .invalidValue(
                    file: nil, key: "\(path).power", value: power,
                    reason: "\"off\" (outside its periods a screen is on)")
            }
            return .off
        case (nil, nil):
            throw .missingKey(file: nil, key: "\(path).playlist (or power = \"off\")")
        }
    }

    /// `HH:MM`, 00:00 to 24:00, as minutes after midnight.
    private static func minutes(_ table: TOMLTable, _ key: String, _ path: String) throws(RoleConfigError) -> Int {
        let value = try text(table, key, path)
        let parts = value.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]),
            let minute = Int(parts[1]), (0...59).contains(minute), hour * 60 + minute <= 1440
        else {
            throw .invalidValue(
                file: nil, key: "\(path).\(key)", value: value, reason: "a time as HH:MM, 00:00 to 24:00")
        }
        return hour * 60 + minute
    }

    private static func text(_ table: TOMLTable, _ key: String, _ path: String) throws(RoleConfigError) -> String {
        guard let value = table[key] else { throw .missingKey(file: nil, key: "\(path).\(key)") }
        return try RoleConfig.string(value, key: "\(path).\(key)")
    }

    private static func known(_ name: String, _ key: String, _ playlists: [String: Playlist]) throws(RoleConfigError) {
        guard playlists[name] == nil else { return }
        let names = playlists.keys.sorted().joined(separator: ", ")
        throw .invalidValue(
            file: nil, key: key, value: name,
            reason:
                "no [[playlist]] has that name (known: \(names.isEmpty ? "none" : names)); [[playlist]] sections come before [[schedule]] ones in the file or not, either way"
        )
    }

}
