import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// `screen.identify`: every screen's identity over its content for the seconds asked, then gone by itself, with
/// nothing saved.
@Suite struct IdentifyTests {
    private static func product() -> ProductController {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("identify-\(UUID().uuidString).json")
        var product = ProductController(model: ScreenModel(config: RoleConfig()), store: StateStore(path: path.path))
        var first = OutputInfo(registryName: 1)
        first.name = "HDMI-A-1"
        first.make = "Acme"
        first.model = "Wall 55"
        first.modeWidth = 1920
        first.modeHeight = 1080
        first.refreshMilliHertz = 60000
        var second = OutputInfo(registryName: 2)
        second.name = "HDMI-A-2"
        second.modeWidth = 1280
        second.modeHeight = 720
        second.scale = 2
        _ = product.outputsChanged([first, second])
        return product
    }

    @Test func everyScreenShowsWhoItIsUntilTheTimeIsUp() {
        var product = Self.product()
        #expect(product.identity(of: 1) == nil && product.nextExpiry == nil)
        let start = Date()
        let outcome = product.identifyScreens(for: 3, now: start)
        #expect(
            outcome.reply
                == .result(
                    method: .identifyScreens,
                    result: ["screens": .array([.string("HDMI-A-1"), .string("HDMI-A-2")]), "seconds": .number(3)]))
        #expect(outcome.changes.everyScreen && !outcome.changes.state)
        #expect(product.screenUpdates(for: outcome.changes).redraws == [1, 2])
        #expect(
            product.identity(of: 1)
                == .init(name: "HDMI-A-1", details: ["Acme Wall 55", "1920×1080 @ 60.000 Hz", "controller"]))
        #expect(
            product.identity(of: 2)
                == .init(name: "HDMI-A-2", details: ["1280×720 @ unknown refresh, scale 2", "external"]))
        #expect(product.nextExpiry == start.addingTimeInterval(3))
        // Not yet: nothing changes.
        #expect(product.expireMessages(now: start.addingTimeInterval(2.9)).changes == Changes())
        #expect(product.identity(of: 1) != nil)
        let ended = product.expireMessages(now: start.addingTimeInterval(3))
        #expect(ended.changes.everyScreen && ended.events.isEmpty)
        #expect(product.identity(of: 1) == nil && product.identity(of: 2) == nil && product.nextExpiry == nil)
        #expect(!product.hasUnsavedState)
    }

    @Test func askingAgainExtendsAndNeverShortens() {
        var product = Self.product()
        let start = Date()
        _ = product.identifyScreens(for: 10, now: start)
        _ = product.identifyScreens(for: 2, now: start.addingTimeInterval(1))
        #expect(product.nextExpiry == start.addingTimeInterval(10))
        _ = product.identifyScreens(for: 20, now: start.addingTimeInterval(5))
        #expect(product.nextExpiry == start.addingTimeInterval(25))
    }

    @Test func throughExecuteItIsNotSavedAndNotARetryOfItself() {
        var product = Self.product()
        let outcome = product.execute(.identifyScreens(seconds: 5), requestID: "id-1")
        guard case .result(.identifyScreens, _)? = outcome.reply else {
            Issue.record("not a result: \(String(describing: outcome.reply))")
            return
        }
        #expect(!outcome.changes.state && !product.hasUnsavedState)
    }
}
