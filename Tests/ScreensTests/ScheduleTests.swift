import Foundation
import Testing

@testable import Screens

/// Dayparting: which playlist plays when, on the kiosk's wall clock, through midnight, the week's end and the 2026
/// daylight-saving changes.
@Suite struct ScheduleTests {
    static func time(_ text: String, _ zone: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    /// Breakfast 06:00–11:00 every day, lunch 11:00–15:00 on weekdays, the weekend promo all Saturday and Sunday above
    /// both, a Christmas special above everything, a late show 22:00–02:00 on Fridays, the menu otherwise.
    static let schedule = Schedule(
        periods: [
            .init(.playlist("breakfast"), from: 6 * 60, until: 11 * 60),
            .init(.playlist("lunch"), weekdays: [2, 3, 4, 5, 6], from: 11 * 60, until: 15 * 60),
            .init(.playlist("weekend"), weekdays: [1, 7], priority: 1),
            .init(.playlist("christmas"), firstDay: "2026-12-24", lastDay: "2026-12-26", priority: 5),
            .init(.playlist("late"), weekdays: [6], from: 22 * 60, until: 2 * 60, priority: 2),
        ], fallback: "menu")

    @Test(arguments: [
        ("2026-11-26 05:59", "menu"), ("2026-11-26 06:00", "breakfast"), ("2026-11-26 10:59", "breakfast"),
        ("2026-11-26 11:00", "lunch"), ("2026-11-26 15:00", "menu"), ("2026-11-28 12:00", "weekend"),
        ("2026-11-27 23:30", "late"), ("2026-11-28 01:59", "late"), ("2026-11-28 02:00", "weekend"),
        ("2026-12-24 12:00", "christmas"), ("2026-12-27 12:00", "weekend"), ("2026-12-31 23:59", "menu"),
    ])
    func eachRuleKindAndPriority(_ when: String, _ expected: String) {
        #expect(
            Self.schedule.playlist(at: Self.time(when, "Europe/Berlin"), in: TimeZone(identifier: "Europe/Berlin")!)
                == expected)
    }

    /// Screens off from 23:00 to 06:00, above every playlist: the night wins over the late show, and the menu is
    /// back at 06:00 (breakfast, Saturday: the weekend promo).
    @Test(arguments: [
        ("2026-11-26 22:59", Schedule.Slot.playlist("menu")), ("2026-11-26 23:00", .off), ("2026-11-27 05:59", .off),
        ("2026-11-27 06:00", .playlist("breakfast")), ("2026-11-27 23:30", .off),
        ("2026-11-28 06:00", .playlist("weekend")),
    ])
    func aPeriodThatTurnsScreensOffWinsByPriority(_ when: String, _ expected: Schedule.Slot) {
        var schedule = Self.schedule
        schedule.periods.append(.init(.off, from: 23 * 60, until: 6 * 60, priority: 9))
        let zone = TimeZone(identifier: "Europe/Berlin")!
        #expect(schedule.slot(at: Self.time(when, zone.identifier), in: zone) == expected)
        #expect(schedule.turnsScreensOff && schedule.namesPlaylists)
        if expected == .off { #expect(schedule.playlist(at: Self.time(when, zone.identifier), in: zone) == nil) }
        // The night's start and end are changes, whatever plays around them.
        #expect(
            schedule.nextChange(after: Self.time("2026-11-26 22:00", zone.identifier), in: zone)
                == Self.time("2026-11-26 23:00", zone.identifier))
        #expect(
            schedule.nextChange(after: Self.time("2026-11-27 01:00", zone.identifier), in: zone)
                == Self.time("2026-11-27 06:00", zone.identifier))
    }

    @Test func theNextChangeIsTheFirstMomentTheAnswerDiffers() {
        let zone = TimeZone(identifier: "Europe/Berlin")!
        #expect(
            Self.schedule.nextChange(after: Self.time("2026-11-26 05:00", zone.identifier), in: zone)
                == Self.time("2026-11-26 06:00", zone.identifier))
        // Breakfast ends at 11:00 where lunch begins: a change.
        #expect(
            Self.schedule.nextChange(after: Self.time("2026-11-26 07:00", zone.identifier), in: zone)
                == Self.time("2026-11-26 11:00", zone.identifier))
        // Friday 15:00 → menu; then 22:00 the late show.
        #expect(
            Self.schedule.nextChange(after: Self.time("2026-11-27 16:00", zone.identifier), in: zone)
                == Self.time("2026-11-27 22:00", zone.identifier))
        #expect(Schedule(periods: [], fallback: "menu").nextChange(after: Date(), in: zone) == nil)
    }

    /// The 2026 changes: Berlin springs forward on 29 March (02:00 → 03:00) and falls back on 25 October; New York on
    /// 8 March and 1 November; Sydney falls back on 5 April and springs forward on 4 October.
    @Test(arguments: [
        ("Europe/Berlin", "2026-03-29", "2026-10-25"), ("America/New_York", "2026-03-08", "2026-11-01"),
        ("Australia/Sydney", "2026-10-04", "2026-04-05"),
    ])
    func daylightSavingIsReadOnTheWallClock(_ zoneName: String, _ springForward: String, _ fallBack: String) {
        let zone = TimeZone(identifier: zoneName)!
        let night = Schedule(periods: [.init(.playlist("night"), from: 2 * 60 + 30, until: 4 * 60)], fallback: "day")
        // Spring forward: 02:30 does not exist; the period starts at the first local time after the gap.
        let start = night.nextChange(after: Self.time("\(springForward) 00:00", zoneName), in: zone)!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        #expect(calendar.component(.hour, from: start) == 3, "\(zoneName): \(start)")
        #expect(night.playlist(at: start, in: zone) == "night")
        #expect(night.playlist(at: start.addingTimeInterval(-60), in: zone) == "day")
        // Fall back: 02:30–03:00 happens twice; both are in the period, which ends at 04:00 local.
        let end = night.nextChange(after: Self.time("\(fallBack) 02:45", zoneName), in: zone)!
        #expect(calendar.component(.hour, from: end) == 4 && calendar.component(.minute, from: end) == 0)
        #expect(night.playlist(at: Self.time("\(fallBack) 02:45", zoneName), in: zone) == "night")
    }

    /// Against a brute force: every minute of two weeks of random schedules, the answer at the minute before each
    /// reported change differs from the answer at the change, and nothing changes in between.
    @Test func agreesWithABruteForceOverRandomSchedules() {
        var random = SystemRandomNumberGenerator()
        let zone = TimeZone(identifier: "America/New_York")!
        let start = Self.time("2026-10-28 00:00", zone.identifier)
        for _ in 0..<40 {
            let periods = (0..<Int.random(in: 1...4, using: &random)).map { index in
                Schedule.Period(
                    index == 3 ? .off : .playlist("p\(index)"),
                    weekdays: Set((1...7).filter { _ in Bool.random(using: &random) }),
                    from: Int.random(in: 0..<48, using: &random) * 30,
                    until: Int.random(in: 1...48, using: &random) * 30,
                    priority: Int.random(in: 0...2, using: &random))
            }
            let schedule = Schedule(periods: periods, fallback: "idle")
            var time = start
            var answer = schedule.slot(at: time, in: zone)
            var next = schedule.nextChange(after: time, in: zone)
            while time < start.addingTimeInterval(8 * 86_400) {
                time = time.addingTimeInterval(60)
                let now = schedule.slot(at: time, in: zone)
                if now != answer {
                    #expect(next == time, "\(periods): changed at \(time), predicted \(String(describing: next))")
                    answer = now
                    next = schedule.nextChange(after: time, in: zone)
                }
            }
        }
    }
}

/// `[[schedule]]` in the config: a rule's screens play the playlist its schedule says, switching when it says.
@Suite struct ScheduleConfigTests {
    static let config = """
        [[playlist]]
        name = "breakfast"
        items = [{ source = "/srv/breakfast.png", seconds = 30 }]

        [[playlist]]
        name = "menu"
        items = [{ source = "/srv/menu.png", seconds = 30 }]

        [[schedule]]
        name = "board"
        fallback = "menu"
        periods = [{ playlist = "breakfast", days = ["mon", "tue", "wed", "thu", "fri"], from = "06:00", until = "11:00" }]

        [[rule]]
        match = { name = "HDMI-A-2" }
        role = "external"
        content = "playlist"
        schedule = "board"
        """

    @Test func aRulesScreenPlaysWhatItsScheduleSays() throws {
        let config = try RoleConfig.parse(Self.config)
        var model = ScreenModel(config: config)
        model.timeZone = TimeZone(identifier: "Europe/Berlin")!
        model.update(outputs: MediaModelTests.outputs)
        let thursday = ScheduleTests.time("2026-11-26 10:59", "Europe/Berlin").timeIntervalSince1970
        model.advancePlaylists(now: thursday)
        #expect(model.playlistItem(of: 2)?.playlist.items.first?.source == "/srv/breakfast.png")
        #expect(model.nextPlaylistSwitch(after: thursday) == thursday + 60)
        let changed = model.advancePlaylists(now: thursday + 60)
        #expect(changed.map(\.screen) == ["HDMI-A-2"])
        #expect(model.playlistItem(of: 2)?.playlist.items.first?.source == "/srv/menu.png")
    }

    /// A web page by day, nothing at night: a rule of any content may follow a schedule that only turns screens off.
    @Test func aScreenOfAnyContentFollowsASchedulesNights() throws {
        let text = """
            [[schedule]]
            name = "nights"
            periods = [{ power = "off", from = "23:00", until = "06:00" }]

            [[rule]]
            match = { name = "HDMI-A-2" }
            role = "external"
            content = "blank"
            schedule = "nights"
            """
        var model = ScreenModel(config: try RoleConfig.parse(text))
        model.timeZone = TimeZone(identifier: "Europe/Berlin")!
        model.update(outputs: MediaModelTests.outputs)
        let evening = ScheduleTests.time("2026-11-26 22:59", "Europe/Berlin").timeIntervalSince1970
        model.advancePlaylists(now: evening)
        #expect(model.power(of: 2) == .on && model.power(of: 1) == .on)
        #expect(model.nextPlaylistSwitch(after: evening) == evening + 60)
        model.advancePlaylists(now: evening + 60)
        #expect(model.power(of: 2) == .scheduledOff && model.power(of: 1) == .on)
        #expect(model.kind(of: 2) == .external(.blank))
        #expect(model.nextPlaylistSwitch(after: evening + 60) == evening + 60 + 7 * 3600)
        model.advancePlaylists(now: evening + 60 + 7 * 3600)
        #expect(model.power(of: 2) == .on)
    }

    /// Off at night, a screen's playlist costs nothing, and in the morning it shows the item the clock says.
    @Test func aPlaylistOffByScheduleComesBackAtTheClocksItem() throws {
        let text = Self.config.replacingOccurrences(
            of: "until = \"11:00\" }]",
            with: "until = \"11:00\" }, { power = \"off\", from = \"23:00\", until = \"06:00\" }]")
        var model = ScreenModel(config: try RoleConfig.parse(text))
        model.timeZone = TimeZone(identifier: "Europe/Berlin")!
        model.update(outputs: MediaModelTests.outputs)
        let night = ScheduleTests.time("2026-11-26 23:30", "Europe/Berlin").timeIntervalSince1970
        model.advancePlaylists(now: night)
        #expect(model.power(of: 2) == .scheduledOff)
        #expect(model.playlistItem(of: 2) == nil)
        #expect(model.kind(of: 2) == .external(.blank))
        // Nothing wakes until 06:00 (Friday: breakfast).
        #expect(model.nextPlaylistSwitch(after: night) == night + 6.5 * 3600)
        let changed = model.advancePlaylists(now: night + 6.5 * 3600)
        #expect(changed.map(\.screen) == ["HDMI-A-2"])
        #expect(model.power(of: 2) == .on)
        #expect(model.playlistItem(of: 2)?.playlist.items.first?.source == "/srv/breakfast.png")
    }

    @Test func aBrokenScheduleIsRefusedWithItsPlace() {
        let off = "{ power = \"off\", from = \"23:00\", until = \"06:00\" }"
        let cases: [(String, String)] = [
            (
                Self.config.replacingOccurrences(
                    of: "until = \"11:00\" }]", with: "until = \"11:00\", power = \"off\" }]"),
                "'schedule[1].periods[1].power' = \"off\": a period either plays a playlist or turns the screen off, not both"
            ),
            (
                Self.config.replacingOccurrences(
                    of: "until = \"11:00\" }]", with: "until = \"11:00\" }, { power = \"on\" }]"),
                "'schedule[1].periods[2].power' = \"on\": \"off\" (outside its periods a screen is on)"
            ),
            (
                Self.config.replacingOccurrences(
                    of: "until = \"11:00\" }]", with: "until = \"11:00\" }, { from = \"23:00\" }]"),
                "schedule[1].periods[2].playlist (or power = \"off\")"
            ),
            (
                Self.config.replacingOccurrences(of: "content = \"playlist\"", with: "content = \"blank\""),
                "'rule[1].schedule' = \"board\": it names playlists, which only a rule with content = \"playlist\" plays"
            ),
            (
                Self.config.replacingOccurrences(of: "content = \"playlist\"", with: "content = \"blank\"")
                    .replacingOccurrences(of: "fallback = \"menu\"\n", with: "").replacingOccurrences(
                        of:
                            "periods = [{ playlist = \"breakfast\", days = [\"mon\", \"tue\", \"wed\", \"thu\", \"fri\"], from = \"06:00\", until = \"11:00\" }]",
                        with: "periods = [\(off), { playlist = \"menu\" }]"),
                "'rule[1].schedule' = \"board\": it names playlists"
            ),
            (
                Self.config.replacingOccurrences(of: "from = \"06:00\"", with: "from = \"6am\""),
                "'schedule[1].periods[1].from' = \"6am\": a time as HH:MM, 00:00 to 24:00"
            ),
            (
                Self.config.replacingOccurrences(of: "\"mon\", ", with: "\"monday\", "),
                "expected some of: sun, mon, tue, wed, thu, fri, sat"
            ),
            (
                Self.config.replacingOccurrences(of: "playlist = \"breakfast\"", with: "playlist = \"brunch\""),
                "'schedule[1].periods[1].playlist' = \"brunch\": no [[playlist]] has that name (known: breakfast, menu)"
            ),
            (
                Self.config.replacingOccurrences(of: "schedule = \"board\"", with: "schedule = \"wall\""),
                "'rule[1].schedule' = \"wall\": no [[schedule]] has that name (known: board)"
            ),
            (
                Self.config.replacingOccurrences(
                    of: "schedule = \"board\"", with: "schedule = \"board\"\nplaylist = \"menu\""),
                "give either playlist = NAME or schedule = NAME"
            ),
        ]
        for (text, expected) in cases {
            do {
                _ = try RoleConfig.parse(text)
                Issue.record("accepted: \(expected)")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }
}
