import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// Which screens a step redraws, follows a message on, reloads; and the controller UI's hit-test and cursor: the
/// decisions the display thread used to make itself, resolved by the product from what each screen shows.
@Suite struct ScreenUpdatesTests {
    private static func output(_ registryName: UInt32, _ name: String) -> OutputInfo {
        var info = OutputInfo(registryName: registryName)
        info.name = name
        info.modeWidth = 640
        info.modeHeight = 360
        return info
    }

    /// HEADLESS-1 shows the controller UI, HEADLESS-2 and HEADLESS-3 messages.
    private static func product(placement: RemoteOfferPlacement = RemoteOfferPlacement()) -> ProductController {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("updates-\(UUID().uuidString).json")
        var product = ProductController(
            model: ScreenModel(config: RoleConfig()), store: StateStore(path: path.path),
            remoteOfferPlacement: placement)
        _ = product.outputsChanged([output(1, "HEADLESS-1"), output(2, "HEADLESS-2"), output(3, "HEADLESS-3")])
        return product
    }

    @Test func aMessageForEveryScreenIsFollowedOnEveryScreenAndRedrawsTheController() {
        var product = Self.product()
        let changes = product.execute(.send(text: "hello", screen: nil)).changes
        let updates = product.screenUpdates(for: changes)
        #expect(updates.redraws == [1], "the controller's log shows it; the others redraw as they follow it")
        #expect(updates.messageFollowers == [1: .controller, 2: .external(.messages), 3: .external(.messages)])
        #expect(updates.pageReloads.isEmpty && !updates.cursor)
    }

    @Test func aMessageForOneScreenIsFollowedThereOnly() {
        var product = Self.product()
        let changes = product.execute(.send(text: "two", screen: "HEADLESS-2")).changes
        #expect(product.screenUpdates(for: changes).messageFollowers == [2: .external(.messages)])
    }

    @Test func aRoleChangeRedrawsEveryScreenAndDecidesTheCursorAgain() {
        var product = Self.product()
        let changes = product.execute(.openCard(screen: "HEADLESS-2", text: "Gate A")).changes
        let updates = product.screenUpdates(for: changes)
        #expect(updates.redraws == [1, 2, 3])
        #expect(updates.cursor)
        #expect(updates.messageFollowers.isEmpty)
    }

    @Test func aRemoteOfferRedrawsOnlyTheScreensThatShowIt() {
        var product = Self.product()
        let changes = product.execute(.remoteOffer(link: "http://k/?code=t", code: "ABCD2345", locked: false)).changes
        #expect(product.screenUpdates(for: changes).redraws == [2, 3], "not the controller")

        var placed = Self.product(placement: RemoteOfferPlacement(screens: ["HEADLESS-3"]))
        let placedChanges = placed.execute(.remoteOffer(link: "http://k/?code=t", code: "ABCD2345", locked: false))
            .changes
        #expect(placed.screenUpdates(for: placedChanges).redraws == [3])
        #expect(placed.showsRemoteOffer(.external(.messages), onScreenNamed: "HEADLESS-3"))
        #expect(!placed.showsRemoteOffer(.external(.messages), onScreenNamed: "HEADLESS-2"))
        #expect(!placed.showsRemoteOffer(.external(.card), onScreenNamed: "HEADLESS-3"))
    }

    @Test func aPageInPlaceOfTheControllerIsNeitherRedrawnNorFollowed() {
        var product = Self.product()
        let opened = product.execute(.openWeb(screen: "HEADLESS-1", url: "https://example.org/main.html")).changes
        #expect(product.screenUpdates(for: opened).pageReloads == [1])
        let changes = product.execute(.send(text: "hello", screen: nil)).changes
        let updates = product.screenUpdates(for: changes)
        #expect(updates.redraws.isEmpty, "the page's own frames show it")
        #expect(updates.messageFollowers == [2: .external(.messages), 3: .external(.messages)])
        #expect(
            product.screenUpdates(for: product.execute(.reloadWeb(screen: "HEADLESS-1")).changes).pageReloads == [1])
    }

    @Test func pressesHitTheControllerUIOnlyOnItsScreen() {
        let product = Self.product()
        let layout = product.controllerLayout(width: 640, height: 360)
        let field = layout.textField
        let (x, y) = (field.x + field.width / 2, field.y + field.height / 2)
        #expect(product.control(atX: x, y: y, bufferWidth: 640, bufferHeight: 360, onScreen: 1) == .textField)
        #expect(product.control(atX: x, y: y, bufferWidth: 640, bufferHeight: 360, onScreen: 2) == nil)
    }

    @Test func theCursorHidesOverPassiveScreensOnly() {
        var product = Self.product()
        #expect(!product.hidesCursor(onScreen: 1))
        #expect(product.hidesCursor(onScreen: 2))
        _ = product.execute(.openWeb(screen: "HEADLESS-2", url: "https://example.org/page.html"))
        #expect(!product.hidesCursor(onScreen: 2), "a page takes the pointer")
    }
}
