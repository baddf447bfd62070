internal import CWebEngine
import Logging

/// The script queue: deliveries from the page's bridge go to the web process as scripts, held until the document
/// has loaded, each timed until the web process answers it (the answers feed the hang watchdog).
extension WebView {
    func run(_ script: String) {
        guard view != nil else { return }
        scriptsSent += 1
        guard documentLoaded else {
            if scriptsAwaitingLoad.count == Self.scriptsKeptWhileLoading {
                scriptsAwaitingLoad.removeFirst()
                scriptsDroppedWhileLoading += 1
                logger.warning(
                    "web view \(url.logSafeURL): \(Self.scriptsKeptWhileLoading) deliveries wait for the page to load; dropped the oldest"
                )
            }
            scriptsAwaitingLoad.append((scriptsSent, script))
            return
        }
        send(script, number: scriptsSent)
    }

    func send(_ script: String, number: UInt64) {
        guard let view else { return }
        scriptsOutstanding[number] = Self.monotonicNanoseconds()
        // The completion may come after this view is gone: it finds the view through a box that holds it weakly.
        let box = Unmanaged.passRetained(ScriptCompletion(view: self, number: number))
        webkit_web_view_run_javascript(
            view, script, nil,
            { source, result, data in
                guard let data else { return }
                let completion = Unmanaged<ScriptCompletion>.fromOpaque(data).takeRetainedValue()
                if let source, let result { multiscreen_finish_script(source, result) }
                completion.view?.scriptCompleted(completion.number)
            }, box.toOpaque())
        armWatchdog()
    }

    fileprivate func scriptCompleted(_ number: UInt64) {
        scriptsOutstanding[number] = nil
        onScriptCompleted(number)
        if scriptsOutstanding.isEmpty {
            cancelWatchdog()
            if state.isUnresponsive { responsive() }
        }
    }
}

/// A script handed to a page: its completion finds the view through this box, which holds it weakly (WebKit may
/// complete a script after the view is gone).
private final class ScriptCompletion {
    weak var view: WebView?
    let number: UInt64

    init(view: WebView, number: UInt64) {
        self.view = view
        self.number = number
    }
}
