import Foundation
import Glibc
import Logging
import Messaging
import Testing

@testable import WebContent

/// Touch into a real page: WPE WebKit in this process (its web process drawing into shared memory, no compositor
/// needed), touch points handed to ``WebView/touch(_:id:x:y:)`` as the seat would, and the page's own `touchstart`
/// and `touchend` handlers reporting through the bridge. This stands in for a compositor test: sway 1.7 cannot
/// inject touch. The view is at scale 2, so a point passed in the wrong space lands in another quadrant.
@Suite(.serialized) struct WebViewTouchTests {
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><style>
        html, body { margin: 0; height: 100%; }
        div { position: fixed; }
        #miss { left: 0; top: 0; width: 50%; height: 50%; }
        #hit { left: 50%; top: 50%; width: 50%; height: 50%; }
        </style></head><body><div id="miss"></div><div id="hit"></div><script>
        function report(name) {
          return function (event) {
            var touch = event.changedTouches[0];
            multiscreen.send(name + ' ' + event.target.id + ' ' + touch.clientX + ',' + touch.clientY);
          };
        }
        document.addEventListener('touchstart', report('touchstart'));
        document.addEventListener('touchend', report('touchend'));
        window.addEventListener('load', function () { multiscreen.send('ready'); });
        </script></body></html>
        """

    /// Runs GLib's main context (WebKit's IPC, the frame export) for up to `seconds`, taking every frame as a screen
    /// would, until `done` says so.
    private func pump(_ engine: WebEngine, _ view: WebView, seconds: Double, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if done() { return true }
            let (fds, timeout) = engine.mainContext.prepare()
            var polled = fds.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
            _ = poll(&polled, nfds_t(polled.count), timeout < 0 || timeout > 50 ? 50 : timeout)
            engine.mainContext.dispatch(revents: polled.map(\.revents))
            if view.takeFrame({ _, _, _, _ in }) { view.framePresented() }
        }
        return done()
    }

    @Test func touchPointsReachThePageAtTheScreensScale() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("web-touch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("touch.html")
        try Self.page.write(to: url, atomically: true, encoding: .utf8)

        let logger = Logger(label: "test.web")
        let engine = try WebEngine(eglExtensions: "", logger: logger)
        let bus = try MessageBus()
        let consumer = bus.makeConsumer()
        let bridge = PageBridge(bus: bus, screen: "TOUCH-1", logger: logger)
        let view = try WebView(
            engine: engine, url: url.absoluteString, width: 320, height: 180, scale: 2, bridge: bridge,
            logger: logger)
        defer { view.destroy() }
        var texts: [String] = []
        let collect = {
            _ = consumer.drain { received in
                if case .send(let text, _, _) = received.message { texts.append(text) }
                received.replyTo?.deliver(.sent(id: 1, screen: nil))
            }
        }
        #expect(
            pump(engine, view, seconds: 30) {
                collect()
                return texts.contains("ready") && view.framesReceived > 0
            })

        // A finger down and up in the middle of the bottom right quadrant: (240, 135) logical, CSS pixels at scale 2.
        view.touch(.down, id: 7, x: 240, y: 135)
        view.touch(.up, id: 7, x: 240, y: 135)
        #expect(
            pump(engine, view, seconds: 10) {
                collect()
                return texts.contains { $0.hasPrefix("touchend") }
            })
        #expect(
            texts.filter { $0.hasPrefix("touch") } == ["touchstart hit 240,135", "touchend hit 240,135"], "\(texts)")
    }
}
