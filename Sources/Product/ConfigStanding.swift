import Foundation
import Screens

/// Which role config is in force and why: `status` shows it (`config`), so a kiosk running on a fallback after a
/// broken edit is visible without reading the log.
public struct ConfigStanding: Equatable, Sendable {
    public enum Source: String, Sendable {
        /// The config file, as read.
        case file
        /// No config file: the defaults (the first output is the controller).
        case defaults
        /// The config file is broken: the last one that was good, remembered in the state directory.
        case lastGood = "last-good"
        /// The config file is broken and none was ever good here: every screen external, no controller UI
        /// anywhere, since a broken config must never put the interactive UI on a screen its rules made public.
        case failSafe = "fail-safe"
        /// A reload (SIGHUP) found the file broken: the config read before stays in force.
        case previous
    }

    public var path: String
    public var source: Source
    /// What is wrong with the file, when it is not the one in force.
    public var error: String?

    /// Every screen external, showing its content; no controller UI.
    public static let failSafeConfig = RoleConfig(
        fallback: .none, rules: [RoleConfig.Rule(match: OutputMatch(name: "*"), role: .external)])
}

/// The copy of the last config that was read without error, beside the state file (`config.last-good.toml`),
/// written when a good config differs from it and read when the config file turns out broken: by the role rules
/// here, and by `run` for `[web]`, `[fleet]` and `[remote]`.
public struct LastGoodConfig: Sendable {
    public let path: String

    public init(stateFile: String) {
        path = (stateFile as NSString).deletingLastPathComponent + "/config.last-good.toml"
    }

    /// Keeps `text`, the text that was just parsed without error, as the last good config (atomically; failures
    /// only logged by the caller). The text parsed, not the file read again: an editor saving in between must not
    /// make a broken file the fallback.
    func remember(text: String) throws {
        let data = Data(text.utf8)
        if let kept = try? Data(contentsOf: URL(fileURLWithPath: path)), kept == data { return }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The last good config, if there is one and it still reads.
    func load() -> RoleConfig? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try? RoleConfig.load(path: path, mustExist: true)
    }
}
