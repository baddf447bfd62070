internal import CWebEngine
import Logging

/// WebKit's signals for the view: the bridge's script messages, the load's progress and failures, the web
/// process's responsiveness and its end.
extension WebView {
    func connectSignals() {
        guard let view, let manager else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        for handler in ["multiscreen", "sendMessage"] {
            webkit_user_content_manager_register_script_message_handler(manager, handler)
        }
        _ = multiscreen_connect_script_message(
            manager, "script-message-received::multiscreen",
            { _, result, data in
                guard let result, let data else { return }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.bridge.received(multiscreen: WebView.text(of: result, stringsAreJSON: true))
            }, me)
        _ = multiscreen_connect_script_message(
            manager, "script-message-received::sendMessage",
            { _, result, data in
                guard let result, let data else { return }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.bridge.received(sendMessage: WebView.text(of: result, stringsAreJSON: false))
            }, me)
        _ = multiscreen_connect_load_changed(
            view,
            { _, event, data in
                guard let data else { return }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                if event == WEBKIT_LOAD_STARTED { page.documentLoaded = false }
                if event == WEBKIT_LOAD_COMMITTED { page.loadCommitted() }
                if event == WEBKIT_LOAD_FINISHED { page.loadFinished() }
            }, me)
        _ = multiscreen_connect_load_failed(
            view,
            { _, _, uri, error, data in
                guard let data else { return 0 }
                let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                let failing = uri.map { String(cString: $0) } ?? ""
                Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue().loadFailed(uri: failing, reason: reason)
                return 1
            }, me)
        _ = multiscreen_connect_responsive(
            view,
            { _, _, data in
                guard let data else { return }
                Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue().responsivenessChanged()
            }, me)
        _ = multiscreen_connect_terminated(
            view,
            { _, reason, data in
                guard let data else { return }
                Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue().terminated(reason)
            }, me)
    }

    /// A script message as text: a JavaScript string as it is (the `multiscreen` handler then reads it as JSON),
    /// anything else as its JSON (`sendMessage` with an object sends that JSON as text).
    private static func text(of result: OpaquePointer, stringsAreJSON: Bool) -> String {
        var isString: gboolean = 0
        guard let raw = multiscreen_script_message_text(result, &isString) else { return "" }
        defer { g_free(raw) }
        return String(cString: raw)
    }

    /// A web process now shows the page. WebKit 2.38 does not count the view, visible from its start, as a visible
    /// page of the web process that commits its load (seen here: WebKit's background responsiveness check, which
    /// runs only for a process without a visible page, pinged that process 20, 40, 80 s … after the load, each ping
    /// a wakeup of our display thread and of WebKit's IPC thread; docs/benchmarks.md). Saying again that the view
    /// is visible makes WebKit count it, and the pings stop.
    private func loadCommitted() {
        guard let backend else { return }
        let visible = wpe_view_activity_state_visible.rawValue
        wpe_view_backend_remove_activity_state(backend, visible)
        wpe_view_backend_add_activity_state(backend, visible)
    }

    private func loadFinished() {
        loadedAt = Self.monotonicNanoseconds()

        if case .failed = state { return }
        logger.info("web view: loaded \(url.logSafeURL)")
        documentLoaded = true
        let waiting = scriptsAwaitingLoad
        scriptsAwaitingLoad = []
        for (number, script) in waiting { send(script, number: number) }
        onChange()
    }

    private func loadFailed(uri: String, reason: String) {
        // A navigation replaced by another (a reload, a new URL) reports "cancelled": not a failure of the page.
        if reason.lowercased().contains("cancel") { return }
        logger.warning("web view: cannot load \(uri.logSafeURL): \(reason)")
        state = .failed(reason: reason)
        onChange()
    }
}
