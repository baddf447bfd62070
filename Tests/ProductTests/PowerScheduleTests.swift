import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// A schedule's nights: `power.changed` when a screen goes off and comes back, `status` saying `off (scheduled)`,
/// and the screen drawn black meanwhile.
@Suite struct PowerScheduleTests {
    private static func output(_ registryName: UInt32, _ name: String) -> OutputInfo {
        var info = OutputInfo(registryName: registryName)
        info.name = name
        info.modeWidth = 640
        info.modeHeight = 360
        return info
    }

    @Test func aScheduleTurnsAScreenOffAndOnWithEventsAndStatus() throws {
        let config = try RoleConfig.parse(
            """
            [[schedule]]
            name = "nights"
            periods = [{ power = "off", from = "23:00", until = "06:00" }]

            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            schedule = "nights"
            """)
        var model = ScreenModel(config: config)
        model.timeZone = TimeZone(identifier: "UTC")!
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("power-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var product = ProductController(model: model, store: StateStore(path: directory.path + "/state.json"))
        _ = product.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])

        let evening = Date(timeIntervalSince1970: 1_795_647_540)  // 2026-11-25 22:59 UTC
        // Whatever the real clock said when the outputs came, at 22:59 the screen is on.
        _ = product.advancePlaylists(now: evening)
        #expect(product.power(of: 2) == .on)
        let night = product.advancePlaylists(now: evening.addingTimeInterval(60))
        #expect(
            night.events == [
                .powerChanged(screen: "HEADLESS-2", power: "off (scheduled)"),
                .scheduleChanged(screen: "HEADLESS-2", schedule: "nights", now: .string("off"), next: 1_795_672_800),
            ])
        #expect(night.changes.screens == ["HEADLESS-2"])
        #expect(product.kind(of: 2) == .external(.blank))
        var vitals = Vitals()
        vitals.powerMethods = [2: "black-screen"]
        guard case .array(let screens)? = StatusReport(product, vitals: vitals).json["screens"] else {
            Issue.record("status has no screens")
            return
        }
        #expect(screens.map { $0.objectValue["power"] } == [.string("on"), .string("off (scheduled)")])
        #expect(screens.last?.objectValue["powerMethod"] == .string("black-screen"))

        let morning = product.advancePlaylists(now: evening.addingTimeInterval(60 + 7 * 3600))
        #expect(
            morning.events == [
                .powerChanged(screen: "HEADLESS-2", power: "on"),
                .scheduleChanged(screen: "HEADLESS-2", schedule: "nights", now: .null, next: 1_795_734_000),
            ])
        #expect(product.kind(of: 2) == .external(.messages))
    }
}
