import Foundation
import Messaging

/// The kiosk's retained `…/status` message: its `status` reply, trimmed, with who and what the kiosk is.
enum RetainedStatus {
    /// Characters of a message or card text kept in the retained status.
    static let textLimit = 200

    /// Retained for every kiosk of a fleet and sent to every watcher: kept to a few KB whatever was shown (a message
    /// or card may be 64 KiB). The full texts are one `status` request away.
    static func document(
        from status: [String: JSONValue], config: FleetConfig, version: String, uptimeSeconds: Int, now: Date,
        playlist: JSONValue = .null
    ) -> JSONValue {
        var document = status
        func trimmed(_ list: JSONValue?, keep: Int) -> JSONValue? {
            guard case .array(let entries)? = list else { return list }
            return .array(
                entries.prefix(keep).map { entry in
                    var fields = entry.objectValue
                    if case .string(let text)? = fields["text"], text.count > textLimit {
                        fields["text"] = .string(String(text.prefix(textLimit)) + "…")
                    }
                    return .object(fields)
                })
        }
        document["messages"] = trimmed(document["messages"], keep: 5)
        document["cards"] = trimmed(document["cards"], keep: 16)
        document["site"] = .string(config.site)
        document["kiosk"] = .string(config.kiosk)
        document["groups"] = .array(config.groups.map { .string($0) })
        document["version"] = .string(version)
        document["uptimeSeconds"] = .integer(uptimeSeconds)
        document["updatedAt"] = .number(now.timeIntervalSince1970)
        // Which retained playlist document is in force here (topic, digest, epoch, screens), null for none.
        document["fleetPlaylist"] = playlist
        return .object(document)
    }
}
