import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// An asset's arrival redraws the screen whose item it is, and `status` says what the screen shows and what the
/// assets are doing.
@Suite struct PlaylistAssetProductTests {
    static let url = "https://cdn.example.org/menu.png"

    static func output(_ registryName: UInt32, _ name: String) -> OutputInfo {
        var info = OutputInfo(registryName: registryName)
        info.name = name
        info.description = "ACME Panel \(registryName) (\(name))"
        info.modeWidth = 640
        info.modeHeight = 360
        return info
    }

    @Test func anArrivingAssetRedrawsItsScreenAndStatusReportsIt() throws {
        var product = ProductController(model: ScreenModel(), store: StateStore(path: "/nonexistent/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        let external = product.model.assignment.controller == 1 ? "HEADLESS-2" : "HEADLESS-1"
        let name: UInt32 = external == "HEADLESS-2" ? 2 : 1
        let playlist = Playlist(items: [.init(source: Self.url, seconds: 60)])
        _ = product.execute(.setPlaylist(screen: external, playlist: playlist))
        // Nothing to show yet: the screen shows what it would without the playlist.
        #expect(product.kind(of: name) == .external(.playlist))

        let arrived = product.assetsChanged([Self.url: "/cache/menu.png"])
        #expect(arrived.changes.screens == [external])
        guard case .media(let shown) = product.kind(of: name) else {
            Issue.record("\(product.kind(of: name))")
            return
        }
        #expect(shown.item.path == "/cache/menu.png")
        // The same news again changes nothing.
        #expect(product.assetsChanged([Self.url: "/cache/menu.png"]).changes.isEmpty)

        var vitals = Vitals()
        vitals.assets = ["cached": .integer(1), "failed": .object([:])]
        guard case .result(.status, let status)? = product.execute(.status, vitals: { vitals }).reply else {
            Issue.record("no status")
            return
        }
        #expect(status["assets"] == .object(["cached": .integer(1), "failed": .object([:])]))
        guard case .array(let screens)? = status["screens"],
            let entry = screens.first(where: { $0.objectValue["name"] == .string(external) })
        else {
            Issue.record("no screen \(external)")
            return
        }
        #expect(entry.objectValue["playlist"]?.objectValue["shownIndex"] == .integer(0))
    }
}
