import Foundation

/// Which playlist plays when: periods by weekday, time of day and date range, each naming a playlist or turning the
/// screen off, the highest priority winning where periods overlap (ties: the first listed), and a default playlist
/// outside every period. Evaluated in the kiosk's time zone on its wall clock; pure, with the time and the zone given.
///
/// Daylight saving, as a wall clock reads it: a period's times are local times. On the day the clocks spring
/// forward, a time that does not exist (02:30 in Europe/Berlin) is reached at the first local time after the gap
/// (03:00); on the day they fall back, an hour that happens twice is in the period both times (and between them, the
/// answer is what the wall clock reads: a period that ended at 02:00 summer time plays again at 01:00 winter time).
public struct Schedule: Codable, Equatable, Hashable, Sendable {
    /// What a period asks of its screens: a playlist, or the screen off (see ``ScreenPower``).
    public enum Slot: Codable, Equatable, Hashable, Sendable {
        case playlist(String)
        case off
    }

    public struct Period: Codable, Equatable, Hashable, Sendable {
        /// What it plays, or that the screen is off.
        public var slot: Slot
        /// Weekdays it starts on, 1 = Sunday … 7 = Saturday (`Calendar`'s numbering); empty: every day.
        public var weekdays: Set<Int>
        /// Minutes after local midnight it starts and ends; an end at or before the start runs past midnight into the
        /// next day (22:00–02:00). 0–1440.
        public var from: Int
        public var until: Int
        /// The first and last day it may start on, as `yyyy-mm-dd`, when it has a date range.
        public var firstDay: String?
        public var lastDay: String?
        public var priority: Int

        public init(
            _ slot: Slot, weekdays: Set<Int> = [], from: Int = 0, until: Int = 1440, firstDay: String? = nil,
            lastDay: String? = nil, priority: Int = 0
        ) {
            self.slot = slot
            self.weekdays = weekdays
            self.from = from
            self.until = until
            self.firstDay = firstDay
            self.lastDay = lastDay
            self.priority = priority
        }
    }

    public var periods: [Period]
    /// What plays outside every period; nil: nothing (the screen shows its messages).
    public var fallback: String?

    public init(periods: [Period], fallback: String? = nil) {
        self.periods = periods
        self.fallback = fallback
    }

    /// Whether some period turns the screen off: a screen may follow such a schedule whatever it shows.
    public var turnsScreensOff: Bool { periods.contains { $0.slot == .off } }

    /// Whether it names playlists (in a period or as the fallback): only a screen that plays playlists may follow it.
    public var namesPlaylists: Bool { fallback != nil || periods.contains { $0.slot != .off } }

    /// The playlist that plays at `time` in `zone`: nil outside every period without a fallback, and in a period that
    /// turns the screen off.
    public func playlist(at time: Date, in zone: TimeZone) -> String? {
        if case .playlist(let name) = slot(at: time, in: zone) { return name }
        return nil
    }

    /// What the schedule asks for at `time` in `zone`: the winning period's slot, else the fallback playlist.
    public func slot(at time: Date, in zone: TimeZone) -> Slot? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let minute = Self.minuteOfDay(time, calendar)
        let today = calendar.startOfDay(for: time)
        let yesterday = calendar.date(byAdding: .day, value: -1, to: today)!
        var best: (period: Period, index: Int)?
        for (index, period) in periods.enumerated() {
            let wraps = period.until <= period.from
            // Today's start, from `from` until `until` (or midnight when it wraps); yesterday's, after midnight.
            let fromToday =
                starts(period, on: today, calendar) && minute >= period.from && (wraps || minute < period.until)
            let fromYesterday = wraps && starts(period, on: yesterday, calendar) && minute < period.until
            guard fromToday || fromYesterday else { continue }
            if best == nil || period.priority > best!.period.priority { best = (period, index) }
        }
        return best?.period.slot ?? fallback.map(Slot.playlist)
    }

    /// The first moment after `time` at which ``slot(at:in:)`` says something else, within the next 8 days; nil
    /// when it never changes (no period, or only ones that always apply).
    public func nextChange(after time: Date, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let now = slot(at: time, in: zone)
        let today = calendar.startOfDay(for: time)
        // Every local time a period starts or ends, and every midnight, over the next days: the answer can only change
        // there. A local time the clocks skip becomes the first one after the gap.
        var candidates: [Date] = []
        for day in 0...8 {
            guard let date = calendar.date(byAdding: .day, value: day, to: today) else { continue }
            candidates.append(date)
            for period in periods {
                // Both times a local time happens on the day the clocks fall back.
                for minute in [period.from, period.until] where minute > 0 && minute < 1440 {
                    for repeated in [Calendar.RepeatedTimePolicy.first, .last] {
                        if let moment = calendar.date(
                            bySettingHour: minute / 60, minute: minute % 60, second: 0, of: date,
                            matchingPolicy: .nextTime, repeatedTimePolicy: repeated, direction: .forward)
                        {
                            candidates.append(moment)
                        }
                    }
                }
            }
        }
        // And the instants the clocks change: falling back, the wall clock reads an hour again.
        var transition = zone.nextDaylightSavingTimeTransition(after: time)
        while let instant = transition, instant < time.addingTimeInterval(9 * 86_400) {
            candidates.append(instant)
            transition = zone.nextDaylightSavingTimeTransition(after: instant)
        }
        for candidate in candidates.filter({ $0 > time }).sorted() where slot(at: candidate, in: zone) != now {
            return candidate
        }
        return nil
    }

    private func starts(_ period: Period, on day: Date, _ calendar: Calendar) -> Bool {
        if !period.weekdays.isEmpty && !period.weekdays.contains(calendar.component(.weekday, from: day)) {
            return false
        }
        let name = Self.dayName(day, calendar)
        if let first = period.firstDay, name < first { return false }
        if let last = period.lastDay, name > last { return false }
        return true
    }

    static func minuteOfDay(_ time: Date, _ calendar: Calendar) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: time)
        return parts.hour! * 60 + parts.minute!
    }

    /// `yyyy-mm-dd` of a day, which orders as the days do.
    static func dayName(_ day: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
