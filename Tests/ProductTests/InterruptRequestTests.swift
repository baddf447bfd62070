import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// `playlist.interrupt` through the product: the reply, the events at its start and at its end (by time or by hand),
/// `status`, and what is refused.
@Suite struct InterruptRequestTests {
    private static let config = """
        [[playlist]]
        name = "drill"
        items = [{ source = "/srv/drill-1.png", seconds = 5 }, { source = "/srv/drill-2.png", seconds = 5 }]
        fit = "cover"
        """

    private static func product(config: String = config) throws -> ProductController {
        var first = OutputInfo(registryName: 1)
        first.name = "HEADLESS-1"
        var second = OutputInfo(registryName: 2)
        second.name = "HEADLESS-2"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("interrupt-\(UUID().uuidString).json")
        var product = ProductController(
            model: ScreenModel(config: try RoleConfig.parse(config)), store: StateStore(path: path.path))
        _ = product.outputsChanged([first, second])
        return product
    }

    private static func status(_ product: inout ProductController, at time: Double) -> [String: JSONValue] {
        var vitals = Vitals()
        vitals.wallClock = time
        guard case .result(.status, let result)? = product.execute(.status, vitals: { vitals }).reply,
            case .array(let screens)? = result["screens"]
        else { return [:] }
        return screens.map(\.objectValue).first { $0["name"] == .string("HEADLESS-2") } ?? [:]
    }

    private func error(_ outcome: Outcome) -> MessageError? {
        if case .error(let error)? = outcome.reply { return error }
        return nil
    }

    @Test func itStartsTellsStatusAndEndsByItsTime() throws {
        var product = try Self.product()
        _ = product.saveIfChanged()
        let epoch = Date().timeIntervalSince1970.rounded(.down)
        let items: [Playlist.Item] = [
            .init(source: "/srv/a.png", seconds: 20), .init(source: "/srv/b.png", seconds: 20),
        ]
        let outcome = product.execute(
            .interruptPlaylist(
                screen: "HEADLESS-2", request: .start(source: .items(items), seconds: 30, epoch: epoch)))
        #expect(
            outcome.reply
                == .result(
                    method: .interruptPlaylist,
                    result: [
                        "screen": .string("HEADLESS-2"), "items": .integer(2), "index": .integer(0),
                        "until": .number(epoch + 20), "ends": .number(epoch + 30),
                    ]))
        #expect(
            outcome.events == [
                .playlistInterrupt(screen: "HEADLESS-2", active: true, ends: epoch + 30),
                .playlistItem(screen: "HEADLESS-2", index: 0, source: "/srv/a.png", until: epoch + 20),
            ])
        #expect(outcome.changes.screens == ["HEADLESS-2"] && outcome.changes.state && product.hasUnsavedState)
        #expect(product.screenUpdates(for: outcome.changes).redraws.contains(2))
        #expect(
            product.kind(of: 2) == .media(ShownMedia(item: MediaItem(path: "/srv/a.png", loop: true), kind: .image)))
        #expect(product.nextPlaylistSwitch == Date(timeIntervalSince1970: epoch + 20))

        let during = Self.status(&product, at: epoch + 25)
        #expect(during["content"] == .string("playlist"))
        #expect(during["interrupt"] == .object(["ends": .number(epoch + 30), "items": .integer(2)]))
        #expect(during["playlist"]?.objectValue["until"] == .number(epoch + 30), "its end is its last switch")

        _ = product.saveIfChanged()
        let ended = product.advancePlaylists(now: Date(timeIntervalSince1970: epoch + 30))
        #expect(ended.events == [.playlistInterrupt(screen: "HEADLESS-2", active: false, ends: epoch + 30)])
        #expect(ended.changes.screens == ["HEADLESS-2"] && ended.changes.state && product.hasUnsavedState)
        #expect(product.kind(of: 2) == .external(.messages))
        let after = Self.status(&product, at: epoch + 31)
        #expect(after["interrupt"] == nil && after["content"] == .string("messages"))
    }

    /// A config playlist by name, over a run-time playlist; cleared by hand, the playlist's item is told again.
    @Test func aConfigPlaylistClearedByHand() throws {
        var product = try Self.product()
        let playlist = Playlist(items: [.init(source: "/srv/menu.png", seconds: 60)])
        _ = product.execute(.setPlaylist(screen: "HEADLESS-2", playlist: playlist))
        let started = product.execute(
            .interruptPlaylist(screen: "HEADLESS-2", request: .start(source: .named("drill"))))
        guard case .result(_, let result)? = started.reply else {
            Issue.record("refused: \(String(describing: started.reply))")
            return
        }
        #expect(result["ends"] == .null && result["items"] == .integer(2))
        #expect(
            product.kind(of: 2)
                == .media(ShownMedia(item: MediaItem(path: "/srv/drill-1.png", fit: .cover, loop: true), kind: .image)))
        let cleared = product.execute(.interruptPlaylist(screen: "HEADLESS-2", request: .clear))
        #expect(
            cleared.reply
                == .result(
                    method: .interruptPlaylist, result: ["screen": .string("HEADLESS-2"), "cleared": .bool(true)]))
        #expect(cleared.events.map(\.name) == ["playlist.interrupt", "playlist.item"])
        #expect(cleared.events.first?.params["active"] == .bool(false))
        #expect(cleared.events.last?.params["source"] == .string("/srv/menu.png"))
        #expect(cleared.changes.screens == ["HEADLESS-2"] && cleared.changes.state)
        #expect(product.model.assignment.kind(of: 2) == .external(.playlist))
        #expect(
            error(product.execute(.interruptPlaylist(screen: "HEADLESS-2", request: .clear)))
                == MessageError(.refused, "no interrupt is playing on HEADLESS-2"))
    }

    @Test func whatIsRefused() throws {
        var product = try Self.product()
        let drill = InterruptRequest.start(source: .named("drill"))
        #expect(error(product.execute(.interruptPlaylist(screen: "HEADLESS-1", request: drill)))?.code == .refused)
        #expect(error(product.execute(.interruptPlaylist(screen: "DP-9", request: drill)))?.code == .invalidParams)
        #expect(
            error(product.execute(.interruptPlaylist(screen: "HEADLESS-2", request: .start(source: .named("fire")))))
                == MessageError(.invalidParams, "no [[playlist]] named \"fire\" in the config (known: drill)"))
        let past = InterruptRequest.start(source: .named("drill"), seconds: 10, epoch: 1_000_000)
        #expect(error(product.execute(.interruptPlaylist(screen: "HEADLESS-2", request: past)))?.code == .invalidParams)
        #expect(product.model.interrupts.isEmpty)
    }
}
