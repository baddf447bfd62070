internal import CWebEngine
import Glibc
import Logging

/// The page's watchdog: a web process that stops answering is ended after ``hungSeconds``, and one that ended
/// (crashed, hung, out of memory) is loaded again after a backoff (``RetrySchedule``).
extension WebView {
    // MARK: - Responsiveness

    func armWatchdog() {
        guard watchdogSource == 0, let oldest = scriptsOutstanding.values.min() else { return }
        let age = Double(Self.monotonicNanoseconds() &- oldest) / 1e9
        let wait = max(Self.unresponsiveSeconds - age, 0.05)
        watchdogSource = g_timeout_add(
            guint(wait * 1000),
            { data in
                guard let data else { return 0 }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.watchdogSource = 0
                page.watchdogFired()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    func cancelWatchdog() {
        if watchdogSource != 0 { g_source_remove(watchdogSource) }
        watchdogSource = 0
    }

    private func watchdogFired() {
        guard let oldest = scriptsOutstanding.values.min() else { return }
        if Double(Self.monotonicNanoseconds() &- oldest) / 1e9 >= Self.unresponsiveSeconds {
            unresponsive(because: "a script waited \(Self.unresponsiveSeconds) s")
        } else {
            armWatchdog()
        }
    }

    /// WebKit's own check (it times the web process's answers to input events and navigations) changed its mind.
    func responsivenessChanged() {
        guard let view else { return }
        if webkit_web_view_get_is_web_process_responsive(view) == 0 {
            unresponsive(because: "WebKit's responsiveness check")
        } else if state.isUnresponsive && scriptsOutstanding.isEmpty {
            responsive()
        }
    }

    private func unresponsive(because why: String) {
        guard !state.isUnresponsive, hungSource == 0 else { return }
        switch state {
        case .failed, .crashed: return  // no process to wait for
        default: break
        }
        hangs += 1
        logger.error(
            "web view \(url.logSafeURL): the web process is not responding (\(why)); ending it in \(Self.hungSeconds) s unless it answers"
        )
        state = .unresponsive(endedInSeconds: Self.hungSeconds)
        hungSource = g_timeout_add(
            guint(Self.hungSeconds * 1000),
            { data in
                guard let data else { return 0 }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.hungSource = 0
                page.endHungProcess()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        onChange()
    }

    func responsive() {
        cancelHung()
        logger.notice("web view \(url.logSafeURL): the web process answers again")
        state = framesReceived > 0 ? .shown : .loading
        onChange()
    }

    private func endHungProcess() {
        guard let view else { return }
        hangRestarts += 1
        endingHungProcess = true
        webkit_web_view_terminate_web_process(view)
    }

    func cancelHung() {
        if hungSource != 0 { g_source_remove(hungSource) }
        hungSource = 0
    }

    // MARK: - Crashes

    func terminated(_ reason: WebKitWebProcessTerminationReason) {
        crashes += 1
        let hung = endingHungProcess
        endingHungProcess = false
        cancelHung()
        cancelWatchdog()
        // The old process answers none of the scripts it had: their completions (with errors) mean nothing now.
        scriptsOutstanding = [:]
        // Until the page has loaded again, deliveries wait for it.
        documentLoaded = false
        let why =
            switch reason {
            case _ where hung: "the web process stopped responding"
            case WEBKIT_WEB_PROCESS_CRASHED: "the web process crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "the web process exceeded its memory limit"
            default: "the web process was terminated"
            }
        let now = Self.monotonicNanoseconds()
        let delay = restarts.failed(afterLasting: loadedAt == 0 ? 0 : Double(now &- loadedAt) / 1e9)
        logger.error("web view \(url.logSafeURL): \(why); loading it again in \(delay) s")
        if let frame = pendingFrame, let exportable {
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, frame)
        }
        pendingFrame = nil
        frameCompletePending = false
        state = .crashed(reason: why, retryInSeconds: delay)
        cancelRestart()
        restartSource = g_timeout_add(
            guint(delay * 1000),
            { data in
                guard let data else { return 0 }
                let page = Unmanaged<WebView>.fromOpaque(data).takeUnretainedValue()
                page.restartSource = 0
                page.reload()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        onChange()
    }

    func cancelRestart() {
        if restartSource != 0 { g_source_remove(restartSource) }
        restartSource = 0
    }

    /// For tests and diagnostics: ends the web process as a crash would.
    public func terminateWebProcess() {
        guard let view else { return }
        webkit_web_view_terminate_web_process(view)
    }
}
