import CompositorHarness
import Foundation
import Outputs
import Remote
import Testing

/// Issue 15: web pages on screens (WPE WebKit) and the starter kit's bridge, on a headless sway with real pixels
/// read back by tesseract. WebKit takes seconds to start on a software renderer, so one Multiscreen with two pages
/// serves every check, in order.
@Suite(.serialized) struct WebPageTests {
    /// The external page: the starter kit's message list, plus a marker that turns the page red if any script a
    /// message smuggled in ever calls `alert`.
    static let externalPage = """
        <!doctype html><html><head><meta charset="utf-8"><style>
        body { background: #ffffff; color: #000000; font: 30px sans-serif; margin: 12px; }
        li { list-style: none; margin: 4px 0; }
        </style></head><body><div>EXTERNAL PAGE</div><div id="seen"></div><ul id="log"></ul><script>
        window.alert = function () { document.body.style.background = '#ff0000'; };
        // Beside receiveMessage, every packet is also a `multiscreen` event: count the message.received events
        // and the messages seen that way.
        var seen = { events: 0, messages: 0 };
        window.addEventListener('multiscreen', function (event) {
          var packet = event.detail;
          if (packet.kind === 'event' && packet.event.method === 'message.received') { seen.events++; }
          if (packet.kind === 'message') { seen.messages++; }
          document.getElementById('seen').textContent = 'events ' + seen.events + ' messages ' + seen.messages;
        });
        function receiveMessage(text) {
          var item = document.createElement('li');
          item.textContent = text;
          document.getElementById('log').prepend(item);
        }
        </script></body></html>
        """

    /// The controller page: posts a `send` through the bridge once loaded, and tries a method pages may not call.
    static let controllerPage = """
        <!doctype html><html><head><meta charset="utf-8"><style>
        body { background: #ffffff; color: #000000; font: 30px sans-serif; margin: 12px; }
        </style></head><body><div>CONTROLLER PAGE</div><div id="reply"></div><div id="denied"></div>
        <input id="field" autofocus><script>
        document.getElementById('field').addEventListener('keydown', function (event) {
          // Blurred after sending: a focused field's blinking caret would redraw the page twice a second.
          if (event.key === 'Enter') { multiscreen.send(event.target.value); event.target.value = ''; event.target.blur(); }
        });
        window.addEventListener('load', function () {
          window.webkit.messageHandlers.multiscreen.postMessage({ method: 'send', params: { text: 'Gate seven boarding' } });
          multiscreen.request('role.set', { screen: 'HEADLESS-2', role: 'controller' })
            .catch(function (error) { document.getElementById('denied').textContent = 'denied ' + error.code; });
          multiscreen.request('status').then(function (status) {
            document.getElementById('reply').textContent = 'screens ' + status.screens.length;
          });
        });
        </script></body></html>
        """

    @discardableResult
    private func waitForText(_ text: String, on output: String, in sway: HeadlessSway, timeout: Double = 30) throws
        -> String
    {
        try ScreenText.waitFor(text, on: output, in: sway, timeout: timeout)
    }

    private func status(_ app: MultiscreenProcess) throws -> [String: Any] {
        let reply = try app.request(#"{"method": "status"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        return try #require(object?["result"] as? [String: Any], "\(reply.prefix(300))")
    }

    private func page(_ app: MultiscreenProcess, _ screen: String) throws -> [String: Any]? {
        let screens = try status(app)["screens"] as? [[String: Any]] ?? []
        return screens.first { $0["name"] as? String == screen }?["web"] as? [String: Any]
    }

    /// The `WPEWebProcess` children of `pid`.
    private func webProcesses(of pid: Int32) -> [Int32] {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.filter { child in
            let comm = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? ""
            return comm.hasPrefix("WPEWebProcess")
        }
    }

    @Test func pagesOnScreensTalkThroughTheBridge() throws {
        let pages = try WebTestPages(["external.html": Self.externalPage, "main.html": Self.controllerPage])
        defer { pages.remove() }

        let sway = try HeadlessSway(outputs: 2, width: 640, height: 360)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            WebTestPages.externalRule(url: pages.url("external.html")), home: home)
        let app = try MultiscreenProcess(environment: sway.environment, home: home)
        try app.waitForLog("web view: loaded", timeout: 30)
        try waitForText("EXTERNAL PAGE", on: "HEADLESS-2", in: sway)

        // Native → page: `multiscreen send` reaches the page's receiveMessage.
        let sent = try app.command(["send", "Hello from the command line"])
        #expect(sent.status == 0, "\(sent.output)")
        try waitForText("Hello from the command line", on: "HEADLESS-2", in: sway)
        // The same message also came as `multiscreen` events, its message.received event and the message itself.
        try waitForText("events 1 messages 1", on: "HEADLESS-2", in: sway)

        // Text that would break out of a spliced string literal arrives as text and runs nothing.
        let injection = "'); alert(1); ('</script><b>bold</b>"
        #expect(try app.command(["send", injection]).status == 0)
        let read = try waitForText("alert(1)", on: "HEADLESS-2", in: sway)
        #expect(read.contains("script") && read.contains("bold"), "the whole text is shown as text: \(read)")
        let shot = try sway.screenshot("HEADLESS-2")
        #expect(shot.fraction(of: RGBColor(red: 255, green: 0, blue: 0), tolerance: 30) < 0.1, "alert() ran")

        // Page → native: the controller page posts `send`; it appears in `status` and on the other screen.
        let opened = try app.command(["web", "open", "--screen", "HEADLESS-1", pages.url("main.html").absoluteString])
        #expect(opened.status == 0, "\(opened.output)")
        try waitForText("Gate seven boarding", on: "HEADLESS-2", in: sway)
        let messages = try status(app)["messages"] as? [[String: Any]] ?? []
        #expect(messages.contains { $0["text"] as? String == "Gate seven boarding" })
        let controllerRead = try waitForText("denied -32004", on: "HEADLESS-1", in: sway)
        #expect(controllerRead.contains("screens 2"), "the status request's reply reached the page: \(controllerRead)")
        // The keyboard reaches the page that replaces the controller UI: typed into its field, sent with Enter.
        let holder = try app.holdKeyboard(sway)
        defer { holder.kill() }
        try typeKeys(sway, ["typed into the page"])
        try typeKeys(sway, ["-k", "Return"])
        try waitForText("typed into the page", on: "HEADLESS-2", in: sway)
        let counters = try #require(status(app)["web:HEADLESS-1"] as? [String: Any])
        #expect(counters["enqueued"] as? Int ?? 0 >= 2 && counters["notAllowed"] as? Int == 1, "\(counters)")

        // Idle: with both pages loaded and nothing changing, no thread of Multiscreen wakes but WebKit 2.38's memory
        // pressure monitor, a thread it starts in every process that embeds it and that reads /proc/meminfo every
        // 5 s whatever the embedder does (docs/benchmarks.md). A page that drew, a busy loop, a GLib timeout of ours
        // or WebKit's ping of a page it took for hidden would wake the display thread or an IPC thread. WebKit
        // also runs one timer of its own about 30 s after a load; a window it fell into is watched again, once.
        try app.process.waitUntilQuiet(for: 0.5, timeout: 15)
        let pid = app.process.pid
        var woke: [String: Int] = [:]
        var wakeups: [String: Int] = [:]
        for _ in 0..<2 {
            let before = try app.process.activity()
            Thread.sleep(forTimeInterval: 3)  // the observation window itself
            let after = try app.process.activity()
            (woke, wakeups) = ([:], [:])
            for (thread, count) in after.contextSwitchesByThread
            where count > before.contextSwitchesByThread[thread] ?? 0 {
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8)) ?? "?"
                let name = thread == pid ? "display thread" : comm.trimmingCharacters(in: .whitespacesAndNewlines)
                woke[name, default: 0] += count - (before.contextSwitchesByThread[thread] ?? 0)
                wakeups[name, default: 0] +=
                    (after.wakeupsByThread[thread] ?? 0) - (before.wakeupsByThread[thread] ?? 0)
            }
            if woke.keys.allSatisfy({ $0 == "PressureMonitor" }) { break }
        }
        #expect(woke.keys.allSatisfy { $0 == "PressureMonitor" }, "threads that woke in 3 s with idle pages: \(woke)")
        // Its wakeups, not all its context switches: on a busy machine the one wakeup may also be preempted.
        #expect(
            wakeups["PressureMonitor", default: 0] <= 1, "WebKit's memory pressure monitor wakes every 5 s: \(wakeups)")
        print("idle pages: context switches per thread in 3 s: \(woke)")

        // The page follows its screen: logical size × scale, in pixels.
        _ = try sway.swaymsg("output", "HEADLESS-2", "scale", "2")
        _ = try sway.swaymsg("output", "HEADLESS-2", "mode", "800x600")
        try app.waitForLog("frames are 800x600 pixels", timeout: 20)
        try waitForText("EXTERNAL PAGE", on: "HEADLESS-2", in: sway)

        // A killed web process: placeholder, then the page loads again by itself.
        let processes = webProcesses(of: pid)
        #expect(!processes.isEmpty)
        // Memory per view: the web process drawing the page, and its resident memory.
        let drawing = try #require(try page(app, "HEADLESS-2")?["webProcess"] as? [String: Any])
        #expect(processes.contains(Int32(drawing["pid"] as? Int ?? 0)), "\(drawing) among \(processes)")
        #expect((drawing["rssMiB"] as? Double ?? 0) > 10, "\(drawing)")
        for process in processes { kill(process, SIGKILL) }
        try waitUntil(timeout: 10, "a crash reported in status") {
            (try page(app, "HEADLESS-2")?["crashes"] as? Int ?? 0) >= 1
        }
        try waitForText("EXTERNAL PAGE", on: "HEADLESS-2", in: sway)
        try waitUntil(timeout: 30, "the restarted page drawing again") {
            try page(app, "HEADLESS-2")?["state"] as? String == "shown"
        }
        try waitUntil(timeout: 10, "the restarted page's web process in status") {
            let now = try page(app, "HEADLESS-2")?["webProcess"] as? [String: Any]
            return now.map { $0["pid"] as? Int != drawing["pid"] as? Int } ?? false
        }

        // A page that cannot load shows an error card with its URL and the reason.
        let missing = pages.url("missing.html").absoluteString
        #expect(try app.command(["web", "open", "--screen", "HEADLESS-1", missing]).status == 0)
        try waitForText("Cannot show", on: "HEADLESS-1", in: sway)
        #expect(try page(app, "HEADLESS-1")?["state"] as? String == "failed")

        // Closing gives the controller UI back; the views are gone with it.
        #expect(try app.command(["web", "close", "--screen", "HEADLESS-1"]).status == 0)
        #expect(try app.command(["web", "close", "--screen", "HEADLESS-1"]).status != 0)
        try app.waitForLog("web view closed: \(missing)")
        #expect(app.process.isRunning)
    }

    /// A web screen's output removed and added again: its view goes with it and comes back, and nothing piles up
    /// (file descriptors, web processes, memory) over the cycles.
    @Test func webScreensFollowHotplugWithoutLeaking() throws {
        let pages = try WebTestPages(["external.html": Self.externalPage])
        defer { pages.remove() }
        let url = pages.url("external.html")
        let outer = try HeadlessSway(outputs: 1, width: 1280, height: 720)
        let nested = try NestedSway(inside: outer, outputs: 2, width: 400, height: 300)
        let home = MultiscreenProcess.makeHome()
        try MultiscreenProcess.writeConfig(
            """
            [[rule]]
            match = { name = "WL-1" }
            role = "controller"

            [[rule]]
            match = { name = "*" }
            role = "external"
            content = "web"
            url = "\(url.absoluteString)"
            """, home: home)
        let app = try MultiscreenProcess(environment: nested.environment, home: home)
        let firstFrame = "web view: first frame of \(url.absoluteString)"
        let closed = "web view closed: \(url.absoluteString)"
        try app.waitForLogCount(firstFrame, count: 1, timeout: 30)
        var opened = 1
        var closes = 0
        func cycle() throws {
            let name = try nested.createOutput()
            opened += 1
            try app.waitForLogCount(firstFrame, count: opened, timeout: 30)
            try nested.removeOutput(name)
            closes += 1
            try app.waitForLogCount(closed, count: closes, timeout: 30)
        }
        try cycle()  // warm-up: what the first extra view allocates for good
        try app.process.waitUntilQuiet(for: 0.5, timeout: 15)
        let fdsBefore = Self.descriptors(app.process.pid)
        let rssBefore = app.process.residentSetBytes
        for _ in 0..<5 { try cycle() }
        try app.process.waitUntilQuiet(for: 0.5, timeout: 15)
        try waitUntil(timeout: 10, "only WL-2's web process left") { webProcesses(of: app.process.pid).count == 1 }
        let fdsAfter = Self.descriptors(app.process.pid)
        #expect(fdsAfter.count == fdsBefore.count, "fds must not grow: \(fdsAfter.filter { !fdsBefore.contains($0) })")
        let growth = app.process.residentSetBytes - rssBefore
        #expect(growth < 16 << 20, "5 web screens added and removed grew Multiscreen by \(growth >> 10) KiB")
        print(
            "web hotplug: 5 cycles, fds \(fdsBefore.count) → \(fdsAfter.count), RSS +\(growth >> 10) KiB"
        )
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }

    /// The process's open file descriptors and what they are, leaving out files under /proc and /sys: WebKit's
    /// memory pressure monitor opens its handful (`/proc/meminfo`, the cgroup's limits) once, a few seconds after
    /// the engine starts, whenever that falls.
    static func descriptors(_ pid: Int32) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return names.sorted().compactMap { name in
            let target =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")) ?? "?"
            return target.hasPrefix("/proc/") || target.hasPrefix("/sys/") ? nil : "\(name)→\(target)"
        }
    }
}
