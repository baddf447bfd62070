import Foundation
import Testing

/// What `status` says about a running Multiscreen, for the web pages' tests.
extension MultiscreenProcess {
    /// The `status` reply's result.
    func statusResult() throws -> [String: Any] {
        let reply = try request(#"{"method": "status"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        return try #require(object?["result"] as? [String: Any], "\(reply.prefix(300))")
    }

    /// The texts of the messages in `status`, newest last as `status` lists them.
    func messageTexts() throws -> [String] {
        (try statusResult()["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// The `web` entry of `screen` in `status`: its page's state, frames, crashes, web process.
    func webPage(_ screen: String) throws -> [String: Any]? {
        let screens = try statusResult()["screens"] as? [[String: Any]] ?? []
        return screens.first { $0["name"] as? String == screen }?["web"] as? [String: Any]
    }
}
