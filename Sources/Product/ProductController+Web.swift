import Messaging
import Screens

/// Web pages on screens: opened, closed and reloaded by request (the pages themselves are the display thread's).
extension ProductController {
    /// `web.open`: the page at `url` on `screen`, loaded again if it was shown already.
    mutating func openWeb(screen: String, url: String) throws(MessageError) -> Outcome {
        let before = model.assignment
        if let problem = WebAddress.problem(url) {
            throw MessageError(.invalidParams, "\"url\": \(problem)")
        }
        try invalidParams { () throws(UnknownScreenError) in try model.openPage(url: url, onScreen: screen) }
        logger.info("web page on \(screen): \(url.logSafeURL)")
        var outcome = Outcome(
            reply: .result(method: .openWeb, result: ["screen": .string(screen), "url": .string(url)]))
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        outcome.changes.pageReloads = [screen]
        return saving(outcome)
    }

    /// `web.close`: the screen shows what it showed before the page.
    mutating func closeWeb(screen: String) throws(MessageError) -> Outcome {
        let before = model.assignment
        let shown = try invalidParams { () throws(UnknownScreenError) in try model.closePage(onScreen: screen) }
        guard shown else { throw MessageError(.refused, "no web page is shown on \(screen)") }
        logger.info("web page closed on \(screen)")
        var outcome = Outcome(reply: .result(method: .closeWeb, result: ["screen": .string(screen)]))
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// `web.reload`: the page shown on `screen` loads again; nothing else changes.
    func reloadWeb(screen: String) throws(MessageError) -> Outcome {
        let output = try connected(screen)
        guard model.page(of: output.registryName) != nil else {
            throw MessageError(.refused, "no web page is shown on \(screen)")
        }
        var outcome = Outcome(reply: .result(method: .reloadWeb, result: ["screen": .string(screen)]))
        outcome.changes.pageReloads = [screen]
        return outcome
    }
}
