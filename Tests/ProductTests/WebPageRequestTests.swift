import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// `web.open`, `web.close`, `web.reload` and the config's `url`, without a compositor.
@Suite struct WebPageRequestTests {
    private static func output(_ registryName: UInt32, _ name: String) -> OutputInfo {
        var info = OutputInfo(registryName: registryName)
        info.name = name
        info.make = "ACME"
        info.model = "Panel \(registryName)"
        info.modeWidth = 640
        info.modeHeight = 360
        return info
    }

    private static func product(config: RoleConfig = RoleConfig()) -> ProductController {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString).json").path
        var product = ProductController(model: ScreenModel(config: config), store: StateStore(path: path))
        _ = product.outputsChanged([output(1, "HEADLESS-1"), output(2, "HEADLESS-2")])
        return product
    }

    private func code(_ outcome: Outcome) -> MessageError.Code? {
        if case .error(let error)? = outcome.reply { return error.code }
        return nil
    }

    @Test func openShowsThePageAndSwitchesTheMode() {
        var product = Self.product()
        let outcome = product.execute(.openWeb(screen: "HEADLESS-2", url: "file:///srv/app/external.html"))
        #expect(code(outcome) == nil)
        #expect(product.kind(of: 2) == .web(url: "file:///srv/app/external.html"))
        #expect(outcome.changes.pageReloads == ["HEADLESS-2"])
        #expect(outcome.events.contains(.contentChanged(screen: "HEADLESS-2", from: "messages", to: "web")))
        // The controller's screen may show a page too, in place of the controller UI.
        _ = product.execute(.openWeb(screen: "HEADLESS-1", url: "https://example.org/main.html"))
        #expect(product.kind(of: 1) == .web(url: "https://example.org/main.html"))
        #expect(product.model.assignment.controller == 1)
    }

    @Test func closeGoesBackToMessagesAndTheControllerUI() {
        var product = Self.product()
        _ = product.execute(.openWeb(screen: "HEADLESS-2", url: "file:///a.html"))
        _ = product.execute(.openWeb(screen: "HEADLESS-1", url: "file:///b.html"))
        #expect(code(product.execute(.closeWeb(screen: "HEADLESS-2"))) == nil)
        #expect(product.kind(of: 2) == .external(.messages))
        #expect(code(product.execute(.closeWeb(screen: "HEADLESS-1"))) == nil)
        #expect(product.kind(of: 1) == .controller)
        #expect(code(product.execute(.closeWeb(screen: "HEADLESS-1"))) == .refused)
        #expect(code(product.execute(.reloadWeb(screen: "HEADLESS-2"))) == .refused)
    }

    @Test(arguments: ["ftp://host/x", "javascript:alert(1)", "file://", "file:///a b.html", "about:blank"])
    func badURLsAreRefused(url: String) {
        var product = Self.product()
        #expect(code(product.execute(.openWeb(screen: "HEADLESS-2", url: url))) == .invalidParams)
        #expect(product.kind(of: 2) == .external(.messages))
    }

    @Test func unknownScreenIsRefused() {
        var product = Self.product()
        #expect(code(product.execute(.openWeb(screen: "HDMI-A-9", url: "file:///a.html"))) == .invalidParams)
    }

    @Test func theConfigsURLIsShownAndCanBeClosed() throws {
        let config = try RoleConfig.parse(
            """
            [[rule]]
            match = { name = "HEADLESS-1" }
            role = "controller"
            content = "web"
            url = "file:///app/main.html"

            [[rule]]
            match = { name = "HEADLESS-2" }
            role = "external"
            content = "web"
            url = "file:///app/external.html"
            """)
        var product = Self.product(config: config)
        #expect(product.kind(of: 1) == .web(url: "file:///app/main.html"))
        #expect(product.kind(of: 2) == .web(url: "file:///app/external.html"))
        #expect(code(product.execute(.reloadWeb(screen: "HEADLESS-2"))) == nil)
        #expect(code(product.execute(.closeWeb(screen: "HEADLESS-1"))) == nil)
        #expect(product.kind(of: 1) == .controller)
    }

    @Test func aURLNeedsWebContentAndWebContentNeedsAURL() {
        #expect(throws: RoleConfigError.self) {
            try RoleConfig.parse(
                """
                [[rule]]
                match = { name = "*" }
                role = "external"
                content = "web"
                """)
        }
        #expect(throws: RoleConfigError.self) {
            try RoleConfig.parse(
                """
                [[rule]]
                match = { name = "*" }
                role = "external"
                url = "file:///a.html"
                """)
        }
        #expect(throws: RoleConfigError.self) {
            try RoleConfig.parse(
                """
                [[rule]]
                match = { name = "*" }
                role = "external"
                content = "web"
                url = "gopher://x"
                """)
        }
    }

    @Test func pagesOpenedAndClosedAtRunTimeSurviveARestart() throws {
        let config = try RoleConfig.parse(
            """
            [[rule]]
            match = { name = "HEADLESS-1" }
            role = "controller"
            content = "web"
            url = "file:///app/main.html"
            """)
        var product = Self.product(config: config)
        _ = product.execute(.openWeb(screen: "HEADLESS-2", url: "https://example.org/board.html"))
        _ = product.execute(.closeWeb(screen: "HEADLESS-1"))
        let saved = product.model.persistentState
        #expect(saved.pages == ["HEADLESS-2": "https://example.org/board.html"] && saved.closedPages == ["HEADLESS-1"])

        var restarted = ProductController(
            model: ScreenModel(config: config, state: saved), store: StateStore(path: "/nonexistent/state.json"))
        _ = restarted.outputsChanged([Self.output(1, "HEADLESS-1"), Self.output(2, "HEADLESS-2")])
        #expect(restarted.kind(of: 2) == .web(url: "https://example.org/board.html"))
        #expect(restarted.kind(of: 1) == .controller, "the configured page closed before the restart stays closed")
        // Closing the page again is remembered too: the screen shows messages after the next restart.
        _ = restarted.execute(.closeWeb(screen: "HEADLESS-2"))
        #expect(restarted.model.persistentState.pages == nil)
    }

    @Test func enterNeverCyclesIntoWeb() {
        #expect(!ContentMode.cycle.contains(.web))
    }
}
