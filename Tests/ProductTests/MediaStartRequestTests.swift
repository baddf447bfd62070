import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// `media.show` given a start (`at`): the item carries it to the reader and the screen, the reply says it, a restart
/// comes back at the clock's point, and a start too far ahead is refused.
@Suite struct MediaStartRequestTests {
    private static func product(store path: String) -> ProductController {
        var first = OutputInfo(registryName: 1)
        first.name = "HEADLESS-1"
        var second = OutputInfo(registryName: 2)
        second.name = "HEADLESS-2"
        var product = ProductController(
            model: ScreenModel(state: StateStore(path: path).load().state), store: StateStore(path: path))
        _ = product.outputsChanged([first, second])
        return product
    }

    private static func read(_ outcome: Outcome) -> [String: JSONValue]? {
        if case .result(_, let result)? = outcome.reply { return result }
        return nil
    }

    @Test func theScreenSwitchesAtItsStartAndIsSavedWithIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("start-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var product = Self.product(store: path)
        let at = Date().timeIntervalSince1970 + 1.5
        let asked = product.execute(.showMedia(screen: "HEADLESS-2", path: "/srv/loop.mp4", loop: true, at: at))
        #expect(asked.reply == nil)
        let request = try #require(asked.mediaToRead)
        #expect(request.item.clockStart == at)

        // Answered once read, with its start; the screen keeps what it shows until then, and reads the file ahead.
        let settled = product.settle(request, with: .readable(kind: .video, width: 320, height: 240, decoder: "avdec"))
        #expect(Self.read(settled)?["at"] == .number(at))
        #expect(product.model.media(of: 2) == nil)
        #expect(product.kind(of: 2) == .external(.messages))
        #expect(product.model.readAhead(of: 2).first == request.item)
        #expect(product.nextPlaylistSwitch == Date(timeIntervalSince1970: at))

        // At the start: switched, its mode told, saved with its start.
        let switched = product.advancePlaylists(now: Date(timeIntervalSince1970: at + 0.001))
        #expect(product.model.media(of: 2)?.item.clockStart == at)
        #expect(product.kind(of: 2) == .media(ShownMedia(item: request.item, kind: .video)))
        #expect(switched.changes.screens.contains("HEADLESS-2"))
        #expect(
            switched.events.contains(.contentChanged(screen: "HEADLESS-2", from: "messages", to: "video")),
            "\(switched.events)")
        #expect(product.model.startingMedia.isEmpty)
        _ = product.saveIfChanged()

        // Restarted: the same start, so a looping video comes back where the clock says, in step with its peers.
        let restarted = Self.product(store: path)
        #expect(restarted.model.media(of: 2)?.item.clockStart == at)
    }

    @Test func aLaterRequestForTheScreenWins() throws {
        for later: Message in [
            .stopMedia(screen: "HEADLESS-2"), .setContent(screen: "HEADLESS-2", mode: "blank"),
            .showMedia(screen: "HEADLESS-2", path: "/srv/other.png"),
        ] {
            var product = Self.product(store: "/nonexistent/state.json")
            let at = Date().timeIntervalSince1970 + 1.5
            let request = try #require(
                product.execute(.showMedia(screen: "HEADLESS-2", path: "/srv/loop.mp4", at: at)).mediaToRead)
            _ = product.settle(request, with: .readable(kind: .video, width: 320, height: 240, decoder: nil))
            #expect(product.model.startingMedia["HEADLESS-2"] != nil)
            let answer = product.execute(later)
            #expect(product.model.startingMedia.isEmpty, "\(later)")
            if case .stopMedia = later { #expect(Self.read(answer)?["screen"] == .string("HEADLESS-2")) }
            _ = product.advancePlaylists(now: Date(timeIntervalSince1970: at + 1))
            #expect(product.model.media(of: 2)?.item.path != "/srv/loop.mp4", "\(later)")
        }
    }

    @Test func withoutAStartTheFileShowsWhenRead() throws {
        var product = Self.product(store: "/nonexistent/state.json")
        let asked = product.execute(.showMedia(screen: "HEADLESS-2", path: "/srv/menu.png"))
        #expect(asked.mediaToRead?.item.clockStart == nil)
    }

    @Test func aStartMoreThanAMinuteAheadIsRefused() {
        var product = Self.product(store: "/nonexistent/state.json")
        let at = Date().timeIntervalSince1970 + 120
        let outcome = product.execute(.showMedia(screen: "HEADLESS-2", path: "/srv/loop.mp4", at: at))
        guard case .error(let error)? = outcome.reply else {
            Issue.record("accepted: \(outcome)")
            return
        }
        #expect(error.code == .invalidParams)
        #expect(error.message.hasPrefix("\"at\" is more than 60 s ahead ("), "\(error.message)")
        #expect(error.message.hasSuffix("): use a playlist or a schedule"))
        #expect(outcome.mediaToRead == nil)
    }
}
