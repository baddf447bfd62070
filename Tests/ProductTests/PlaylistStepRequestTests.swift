import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// `playlist.show|next|previous|pause|resume` and `schedule.show|set` through the product: replies, events, what is
/// saved, and what is refused.
@Suite struct PlaylistStepRequestTests {
    private static let config = """
        [[playlist]]
        name = "menu"
        items = [{ source = "/srv/menu-1.png", seconds = 600 }, { source = "/srv/menu-2.png", seconds = 600 }]

        [[playlist]]
        name = "promo"
        items = [{ source = "/srv/promo.png", seconds = 600 }]

        [[schedule]]
        name = "all-day-promo"
        fallback = "promo"

        [[schedule]]
        name = "never-off"
        periods = [{ power = "off", first_day = "2001-01-01", last_day = "2001-01-01" }]

        [[rule]]
        match = { name = "HEADLESS-2" }
        role = "external"
        content = "playlist"
        playlist = "menu"
        """

    private static func product(store path: String? = nil) throws -> ProductController {
        var first = OutputInfo(registryName: 1)
        first.name = "HEADLESS-1"
        var second = OutputInfo(registryName: 2)
        second.name = "HEADLESS-2"
        let path =
            path
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString).json").path
        var product = ProductController(
            model: ScreenModel(config: try RoleConfig.parse(config), state: StateStore(path: path).load().state),
            store: StateStore(path: path))
        _ = product.outputsChanged([first, second])
        return product
    }

    private func result(_ outcome: Outcome) -> [String: JSONValue]? {
        if case .result(_, let result)? = outcome.reply { return result }
        return nil
    }

    private func error(_ outcome: Outcome) -> MessageError? {
        if case .error(let error)? = outcome.reply { return error }
        return nil
    }

    @Test func nextPreviousPauseAndResumeMoveTheRulesPlaylist() throws {
        var product = try Self.product()
        let now = Date().timeIntervalSince1970
        let playing = product.model.playlistItem(of: 2)!.index
        let next = product.execute(.stepPlaylist(screen: "HEADLESS-2", step: .next, at: now))
        #expect(result(next)?["index"] == .integer(1 - playing))
        #expect(result(next)?["paused"] == .bool(false))
        #expect(result(next)?["until"] == .number(now + 600))
        #expect(
            next.events == [
                .playlistItem(
                    screen: "HEADLESS-2", index: 1 - playing, source: "/srv/menu-\(2 - playing).png", until: now + 600)
            ])
        #expect(next.changes.screens == ["HEADLESS-2"] && next.changes.state)
        #expect(product.model.playlistItem(of: 2)!.index == 1 - playing)

        // Held, it never switches: nothing to wake for.
        let pause = product.execute(.stepPlaylist(screen: "HEADLESS-2", step: .pause, at: now + 1))
        #expect(result(pause)?["paused"] == .bool(true) && result(pause)?["until"] == .null)
        #expect(product.nextPlaylistSwitch == nil)
        let show = try #require(result(product.execute(.showPlaylist(screen: "HEADLESS-2"))))
        #expect(show["from"] == .string("rule") && show["playlist"] == .string("menu"))
        #expect(
            show["paused"] == .bool(true) && show["steered"] == .bool(true) && show["index"] == .integer(1 - playing))

        // Resumed 30 s later, the item has the rest of its time: 599 s.
        let resume = product.execute(.stepPlaylist(screen: "HEADLESS-2", step: .resume, at: now + 31))
        #expect(result(resume)?["until"] == .number(now + 630))
        let previous = product.execute(.stepPlaylist(screen: "HEADLESS-2", step: .previous, at: now + 40))
        #expect(result(previous)?["index"] == .integer(playing))
    }

    @Test func stepsAreSavedAndEndWhenAnotherPlaylistIsSet() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var product = try Self.product(store: path)
        _ = product.execute(.stepPlaylist(screen: "HEADLESS-2", step: .pause, at: Date().timeIntervalSince1970))
        _ = product.saveIfChanged()
        var restarted = try Self.product(store: path)
        #expect(restarted.model.playlist(of: restarted.outputs[1])?.pausedAt != nil)

        let set = Playlist(items: [.init(source: "/srv/x.png", seconds: 5)])
        _ = restarted.execute(.setPlaylist(screen: "HEADLESS-2", playlist: set))
        #expect(restarted.model.steering.isEmpty)
        #expect(restarted.model.playlist(of: restarted.outputs[1]) == set)
    }

    @Test func whatCannotBeSteppedIsRefused() throws {
        var product = try Self.product()
        #expect(
            error(product.execute(.stepPlaylist(screen: "HEADLESS-1", step: .next, at: nil)))?.message
                == "HEADLESS-1 plays no playlist now")
        #expect(
            error(product.execute(.stepPlaylist(screen: "NOPE", step: .next, at: nil)))?.message.hasPrefix(
                "unknown screen 'NOPE'") == true)
        _ = product.execute(
            .interruptPlaylist(
                screen: "HEADLESS-2", request: .start(source: .items([.init(source: "/srv/a.png", seconds: 5)]))))
        #expect(
            error(product.execute(.stepPlaylist(screen: "HEADLESS-2", step: .pause, at: nil)))?.message
                == "an interrupt plays on HEADLESS-2: its items are not stepped (clear it, or wait for its end)")
        #expect(
            result(product.execute(.showPlaylist(screen: "HEADLESS-2")))?["from"] == .string("interrupt"))
    }

    @Test func aScheduleChosenAtRunTimeReplacesTheRulesPlaylistUntilSetBack() throws {
        var product = try Self.product()
        let chosen = product.execute(.setSchedule(screen: "HEADLESS-2", schedule: "all-day-promo"))
        #expect(result(chosen)?["schedule"] == .string("all-day-promo"))
        #expect(result(chosen)?["now"] == .object(["playlist": .string("promo")]))
        #expect(
            chosen.events.contains {
                $0.name == "schedule.changed" && $0.params["now"] == .object(["playlist": .string("promo")])
            })
        #expect(
            chosen.events.contains { $0.name == "playlist.item" && $0.params["source"] == .string("/srv/promo.png") })
        #expect(product.model.playlistItem(of: 2)?.playlist.items.first?.source == "/srv/promo.png")

        let shown = try #require(result(product.execute(.showSchedule(screen: nil))))
        guard case .array(let screens)? = shown["screens"] else {
            Issue.record("no screens")
            return
        }
        #expect(screens.count == 2)
        #expect(screens[0].objectValue["schedule"] == .null)
        #expect(screens[1].objectValue["schedule"] == .string("all-day-promo"))
        #expect(screens[1].objectValue["from"] == .string("set"))
        #expect(screens[1].objectValue["next"] == .null)

        // A schedule that only turns the screen off leaves the rule's playlist playing.
        _ = product.execute(.setSchedule(screen: "HEADLESS-2", schedule: "never-off"))
        #expect(product.model.playlistItem(of: 2)?.playlist.items.first?.source.hasPrefix("/srv/menu-") == true)
        let back = product.execute(.setSchedule(screen: "HEADLESS-2", schedule: nil))
        #expect(result(back)?["schedule"] == .null)
        #expect(back.events.contains { $0.name == "schedule.changed" && $0.params["schedule"] == .null })

        #expect(
            error(product.execute(.setSchedule(screen: "HEADLESS-2", schedule: "nope")))?.message
                == "no [[schedule]] named \"nope\" in the config (known: all-day-promo, never-off)")
        #expect(
            error(product.execute(.setSchedule(screen: "HEADLESS-1", schedule: "all-day-promo")))?.message
                == "HEADLESS-1 shows the controller UI, not playlists: name an external screen")
    }

    /// A schedule chosen at run time that a reload removes is forgotten: the screen follows its rule again.
    @Test func aChosenScheduleRemovedFromTheConfigIsForgotten() throws {
        var product = try Self.product()
        _ = product.execute(.setSchedule(screen: "HEADLESS-2", schedule: "all-day-promo"))
        let output = try #require(product.outputs.first { $0.displayName == "HEADLESS-2" })
        #expect(product.model.scheduleName(of: output) == "all-day-promo")
        var model = product.model
        _ = model.replace(
            config: try RoleConfig.parse(Self.config.replacingOccurrences(of: "all-day-promo", with: "x")))
        #expect(model.scheduleName(of: output) == nil)
        model.advancePlaylists(now: Date().timeIntervalSince1970)
        #expect(model.playlistItem(of: 2)?.playlist.items.first?.source.hasPrefix("/srv/menu-") == true)
    }
}
