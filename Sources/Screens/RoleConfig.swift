import ConfigFile
import Foundation
import Outputs
import TOMLKit
import TOMLPrecheck

/// The roles config file: which output is the controller, what the others show, and what happens when the
/// controller's output goes away.
///
/// The file is TOML because kiosk installers edit it by hand, often over SSH on the device: TOML allows comments
/// (to say why a rule is there), has no significant indentation to get wrong (unlike YAML), no trailing-comma or
/// quoting traps (unlike JSON), and its parser reports syntax errors with a line and column. Unknown keys are
/// errors, not ignored, so that a typo (`nmae = "HDMI-A-1"`) is reported instead of silently matching nothing.
///
/// ```toml
/// [controller]
/// fallback = "first"   # or "none": what happens while the controller's output is gone
/// return = true        # move the controller UI back when it returns
///
/// [[rule]]
/// match = { name = "HDMI-A-1" }   # any of name, description, make, model; exact or glob (* and ?)
/// role = "controller"
///
/// [[rule]]
/// match = { make = "Dell*" }
/// role = "external"
/// content = "mirror"              # messages | mirror | card | blank | web | image | video (default messages)
/// # url = "file:///srv/app/external.html"   # with content = "web": the page it shows
/// # path = "/srv/signage/menu.png"          # with content = "image" or "video": the file it shows, and optionally
/// # fit = "cover"                           #   contain | cover | stretch | center (default contain),
/// # rotate = 90                             #   0 | 90 | 180 | 270 (default 0), loop = true (a video; default false)
/// # audio = true                            #   a video's sound plays (one screen at a time; default muted)
///
/// [theme]                         # how external screens look: see ``ScreenTheme``
/// align = "center"
/// ```
public struct RoleConfig: Equatable, Sendable {
    /// What shows the controller UI while the preferred controller's output is gone.
    public enum Fallback: String, Equatable, Sendable, CaseIterable {
        /// The first remaining output (natural name order) stands in, without taking the role for good.
        case first
        /// No controller UI until the controller's output returns (the externals keep showing their content).
        case none
    }

    /// One `[[rule]]`: outputs it matches get its role and, when external, its content mode.
    public struct Rule: Equatable, Sendable {
        public var match: OutputMatch
        public var role: ScreenRole
        /// The content mode for a matched output that is not the controller; nil leaves the default (messages).
        public var content: ContentMode?
        /// The page a matched output shows: with `content = "web"` only (a `file://`, `http://` or `https://` URL).
        public var url: String?
        /// The image or video a matched output shows: with `content = "image"` or `"video"` only.
        public var media: MediaItem?
        /// The name of the `[[playlist]]` a matched output plays: with `content = "playlist"` only.
        public var playlist: String?
        /// Or the name of the `[[schedule]]` that says which playlist it plays when, and when the screen is off (a rule
        /// with other content may name a schedule whose periods only turn the screen off).
        public var schedule: String?
        /// Screens (output names) that show the rule's playlist side by side in this order: the n-th shows the item n
        /// places after the first's (``Playlist/offset``). Empty: each screen shows the clock's item.
        public var spread: [String]

        public init(
            match: OutputMatch, role: ScreenRole, content: ContentMode? = nil, url: String? = nil,
            media: MediaItem? = nil, playlist: String? = nil, schedule: String? = nil, spread: [String] = []
        ) {
            self.spread = spread
            self.match = match
            self.role = role
            self.content = content
            self.url = url
            self.media = media
            self.playlist = playlist
            self.schedule = schedule
        }
    }

    public var fallback: Fallback
    /// `return` in the file: whether the controller UI moves back when the preferred controller's output returns.
    public var returnsToPreferred: Bool
    /// In file order: the first rule that matches an output decides.
    public var rules: [Rule]
    /// The `[theme]` section.
    public var theme: ScreenTheme
    /// The `[[playlist]]` sections, by name.
    public var playlists: [String: Playlist] = [:]
    /// The `[[schedule]]` sections, by name.
    public var schedules: [String: Schedule] = [:]

    public init(
        fallback: Fallback = .first, returnsToPreferred: Bool = true, rules: [Rule] = [],
        theme: ScreenTheme = ScreenTheme()
    ) {
        self.fallback = fallback
        self.returnsToPreferred = returnsToPreferred
        self.rules = rules
        self.theme = theme
    }

    /// The first rule matching `output`, if any.
    public func rule(for output: OutputInfo) -> Rule? {
        rules.first { $0.match.matches(output) }
    }

    /// `$XDG_CONFIG_HOME/multiscreen/config.toml`, else `~/.config/multiscreen/config.toml`.
    ///
    /// A relative `XDG_CONFIG_HOME` is ignored, as the XDG Base Directory spec requires.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGPath.base(environment, variable: "XDG_CONFIG_HOME", fallback: ".config") + "/multiscreen/config.toml"
    }

    /// Reads the config at `path`. A missing file gives the defaults (no rules), unless `mustExist` (the path was
    /// named explicitly, with `--config`): then it is an error, as is a directory or a file that cannot be read.
    /// Any file that reads (a FIFO, `/dev/null`) is parsed; empty text is a valid config with no rules.
    public static func load(path: String, mustExist: Bool = false) throws(RoleConfigError) -> RoleConfig {
        let text: String?
        do throws(ConfigFile.Problem) {
            text = try ConfigFile.text(at: path)
        } catch {
            throw .unreadable(file: path, reason: error.message)
        }
        guard let text else {
            if mustExist { throw .unreadable(file: path, reason: "no such file (it was named explicitly)") }
            return RoleConfig()
        }
        do {
            return try parse(text)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Parses the text of a config file.
    public static func parse(_ text: String) throws(RoleConfigError) -> RoleConfig {
        let root: TOMLTable
        do throws(ConfigFile.Problem) {
            root = try ConfigFile.table(text)
        } catch {
            throw .syntax(file: nil, line: error.line ?? 0, column: error.column ?? 0, message: error.message)
        }
        var config = RoleConfig()
        // `[fleet]` belongs to the fleet link (the Fleet module's `FleetConfig` reads it from the same file),
        // `[remote]` to the phone remote (PhoneRemote's `RemoteConfig`), `[web]` to the pages (WebContent's
        // `WebConfig`), `[assets]` to the asset cache (Assets' `AssetConfig`).
        try checkKeys(
            root, path: nil,
            allowed: ["controller", "rule", "theme", "playlist", "schedule", "fleet", "remote", "web", "assets"])
        if let controller = root["controller"] {
            guard let table = controller.table else {
                throw .wrongType(file: nil, key: "controller", expected: "a table")
            }
            try checkKeys(table, path: "controller", allowed: ["fallback", "return"])
            if let value = table["fallback"] {
                let text = try string(value, key: "controller.fallback")
                guard let fallback = Fallback(rawValue: text) else {
                    throw .invalidValue(
                        file: nil, key: "controller.fallback", value: text, reason: "expected \"first\" or \"none\"")
                }
                config.fallback = fallback
            }
            if let value = table["return"] {
                guard let flag = value.bool else {
                    throw .wrongType(file: nil, key: "controller.return", expected: "true or false")
                }
                config.returnsToPreferred = flag
            }
        }
        if let playlists = root["playlist"] {
            guard let array = playlists.array, array.allSatisfy({ $0.table != nil }) else {
                throw .wrongType(file: nil, key: "playlist", expected: "an array of tables ([[playlist]] sections)")
            }
            for index in 0..<array.count {
                let (name, playlist) = try Self.playlist(array[index].table!, path: "playlist[\(index + 1)]")
                guard config.playlists[name] == nil else {
                    throw .invalidValue(
                        file: nil, key: "playlist[\(index + 1)].name", value: name,
                        reason: "a second playlist of that name")
                }
                config.playlists[name] = playlist
            }
        }
        if let schedules = root["schedule"] {
            guard let array = schedules.array, array.allSatisfy({ $0.table != nil }) else {
                throw .wrongType(file: nil, key: "schedule", expected: "an array of tables ([[schedule]] sections)")
            }
            for index in 0..<array.count {
                let path = "schedule[\(index + 1)]"
                let (name, schedule) = try ScheduleSection.parse(
                    array[index].table!, path: path, playlists: config.playlists)
                guard config.schedules[name] == nil else {
                    throw .invalidValue(
                        file: nil, key: "\(path).name", value: name, reason: "a second schedule of that name")
                }
                config.schedules[name] = schedule
            }
        }
        if let rules = root["rule"] {
            guard let array = rules.array, array.allSatisfy({ $0.table != nil }) else {
                throw .wrongType(file: nil, key: "rule", expected: "an array of tables ([[rule]] sections)")
            }
            for index in 0..<array.count {
                let rule = try rule(array[index].table!, path: "rule[\(index + 1)]")
                if let name = rule.playlist, config.playlists[name] == nil {
                    let known = config.playlists.keys.sorted().joined(separator: ", ")
                    throw .invalidValue(
                        file: nil, key: "rule[\(index + 1)].playlist", value: name,
                        reason: "no [[playlist]] has that name (known: \(known.isEmpty ? "none" : known))")
                }
                if let name = rule.schedule {
                    guard let schedule = config.schedules[name] else {
                        let known = config.schedules.keys.sorted().joined(separator: ", ")
                        throw .invalidValue(
                            file: nil, key: "rule[\(index + 1)].schedule", value: name,
                            reason: "no [[schedule]] has that name (known: \(known.isEmpty ? "none" : known))")
                    }
                    if rule.content != .playlist && schedule.namesPlaylists {
                        throw .invalidValue(
                            file: nil, key: "rule[\(index + 1)].schedule", value: name,
                            reason:
                                "it names playlists, which only a rule with content = \"playlist\" plays; a screen showing anything else may follow a schedule whose periods all say power = \"off\""
                        )
                    }
                }
                config.rules.append(rule)
            }
        }
        if let theme = root["theme"] {
            guard let table = theme.table else { throw .wrongType(file: nil, key: "theme", expected: "a table") }
            config.theme = try ScreenTheme.parse(table)
        }
        return config
    }

    private static func rule(_ table: TOMLTable, path: String) throws(RoleConfigError) -> Rule {
        try checkKeys(
            table, path: path,
            allowed: [
                "match", "role", "content", "url", "path", "fit", "rotate", "loop", "audio", "playlist", "schedule",
                "spread",
            ])
        guard let matchValue = table["match"] else { throw .missingKey(file: nil, key: "\(path).match") }
        guard let matchTable = matchValue.table else {
            throw .wrongType(file: nil, key: "\(path).match", expected: "a table such as { name = \"HDMI-A-1\" }")
        }
        let fields = ["name", "description", "make", "model"]
        try checkKeys(matchTable, path: "\(path).match", allowed: fields)
        var values: [String: String] = [:]
        for field in fields {
            if let value = matchTable[field] { values[field] = try string(value, key: "\(path).match.\(field)") }
        }
        let match = OutputMatch(
            name: values["name"], description: values["description"], make: values["make"], model: values["model"])
        if match.isEmpty {
            throw .invalidValue(
                file: nil, key: "\(path).match", value: "{}",
                reason: "give at least one of name, description, make, model (\"*\" matches everything)")
        }
        guard let roleValue = table["role"] else { throw .missingKey(file: nil, key: "\(path).role") }
        let roleName = try string(roleValue, key: "\(path).role")
        guard let role = ScreenRole.validated(roleName) else {
            throw .invalidValue(
                file: nil, key: "\(path).role", value: roleName,
                reason: "a role is \"controller\", \"external\" or another lowercase name of letters, digits and -")
        }
        var content: ContentMode?
        if let contentValue = table["content"] {
            let name = try string(contentValue, key: "\(path).content")
            guard let mode = ContentMode(rawValue: name) else {
                let modes = ContentMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidValue(file: nil, key: "\(path).content", value: name, reason: "expected one of: \(modes)")
            }
            content = mode
        }
        var url: String?
        if let urlValue = table["url"] {
            let text = try string(urlValue, key: "\(path).url")
            if let problem = WebAddress.problem(text) {
                throw .invalidValue(file: nil, key: "\(path).url", value: text, reason: problem)
            }
            guard content == .web else {
                throw .invalidValue(
                    file: nil, key: "\(path).url", value: text, reason: "a url needs content = \"web\" in the same rule"
                )
            }
            url = text
        } else if content == .web {
            throw .missingKey(file: nil, key: "\(path).url")
        }
        let media = try mediaItem(table, path: path, content: content)
        var named: [String: String] = [:]
        for key in ["playlist", "schedule"] {
            guard let value = table[key] else { continue }
            // A schedule that only turns the screen off suits any content (checked once the schedules are known).
            guard content == .playlist || key == "schedule" else {
                throw .invalidValue(
                    file: nil, key: "\(path).content", value: content?.rawValue ?? "messages",
                    reason: "\(key) needs content = \"playlist\" in the same rule")
            }
            named[key] = try string(value, key: "\(path).\(key)")
        }
        if content == .playlist && named.count != 1 {
            throw .invalidValue(
                file: nil, key: "\(path).content", value: "playlist",
                reason: "give either playlist = NAME or schedule = NAME (one of them)")
        }
        var spread: [String] = []
        if let value = table["spread"] {
            guard content == .playlist, let array = value.array, !array.isEmpty else {
                throw .invalidValue(
                    file: nil, key: "\(path).spread", value: "…",
                    reason:
                        "spread is a list of screens, [\"HDMI-A-1\", \"HDMI-A-2\"], in a rule with content = \"playlist\""
                )
            }
            for index in 0..<array.count {
                let name = try string(array[index], key: "\(path).spread[\(index + 1)]")
                guard !spread.contains(name) else {
                    throw .invalidValue(
                        file: nil, key: "\(path).spread[\(index + 1)]", value: name, reason: "a screen listed twice")
                }
                spread.append(name)
            }
        }
        return Rule(
            match: match, role: role, content: content, url: url, media: media, playlist: named["playlist"],
            schedule: named["schedule"], spread: spread)
    }

    /// A playlist item's `from` or `until`, local time on the kiosk's clock: `"2026-12-24 18:00"` (or with a `T`), or a
    /// day, `"2026-12-24"`, which is its first moment for `from` and, for `until`, its last (the window includes it).
    private static func moment(_ value: TOMLValueConvertible, key: String, endOfDay: Bool) throws(RoleConfigError)
        -> Double
    {
        let text = try string(value, key: key)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            guard let date = formatter.date(from: text) else { continue }
            let isDay = format == "yyyy-MM-dd"
            return date.timeIntervalSince1970 + (isDay && endOfDay ? Self.dayLength(from: date) : 0)
        }
        throw .invalidValue(
            file: nil, key: key, value: text, reason: "a local time, \"2026-12-24 18:00\", or a day, \"2026-12-24\"")
    }

    /// The length of the day that starts at `date` in the kiosk's time zone (23 or 25 hours when the clocks change).
    private static func dayLength(from date: Date) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        return (calendar.date(byAdding: .day, value: 1, to: date) ?? date.addingTimeInterval(86_400))
            .timeIntervalSince(date)
    }

    /// One `[[playlist]]`: its `name`, `items` (`{ source = PATH_OR_URL, seconds = N }`, a video without `seconds`
    /// playing its own length, an asset by URL with an optional `sha256`), optional `fit` and `epoch`.
    private static func playlist(_ table: TOMLTable, path: String) throws(RoleConfigError) -> (String, Playlist) {
        try checkKeys(table, path: path, allowed: ["name", "items", "fit", "epoch"])
        guard let nameValue = table["name"] else { throw .missingKey(file: nil, key: "\(path).name") }
        let name = try string(nameValue, key: "\(path).name")
        guard let itemsValue = table["items"] else { throw .missingKey(file: nil, key: "\(path).items") }
        guard let array = itemsValue.array, array.allSatisfy({ $0.table != nil }) else {
            throw .wrongType(
                file: nil, key: "\(path).items", expected: "an array of { source = \"…\", seconds = N } tables")
        }
        var items: [Playlist.Item] = []
        for index in 0..<array.count {
            let item = array[index].table!
            let place = "\(path).items[\(index + 1)]"
            try checkKeys(item, path: place, allowed: ["source", "seconds", "sha256", "from", "until", "transition"])
            guard let source = item["source"] else { throw .missingKey(file: nil, key: "\(place).source") }
            var seconds: Double?
            if let value = item["seconds"] {
                guard let number = value.double ?? value.int.map(Double.init) else {
                    throw .wrongType(file: nil, key: "\(place).seconds", expected: "a number of seconds")
                }
                seconds = number
            }
            var parsed = Playlist.Item(source: try string(source, key: "\(place).source"), seconds: seconds)
            if let sha256 = item["sha256"] {
                let key = "\(place).sha256"
                let text = try string(sha256, key: key).lowercased()
                guard Playlist.Item.isSHA256(text) else {
                    throw .invalidValue(file: nil, key: key, value: text, reason: "not 64 hexadecimal digits")
                }
                guard parsed.isAsset else {
                    throw .invalidValue(
                        file: nil, key: key, value: text,
                        reason:
                            "only an image or video by http(s) URL has one (a URL whose path ends in an image's or a video's extension)"
                    )
                }
                parsed.sha256 = text
            }
            if let from = item["from"] { parsed.from = try moment(from, key: "\(place).from", endOfDay: false) }
            if let until = item["until"] { parsed.until = try moment(until, key: "\(place).until", endOfDay: true) }
            if let transition = item["transition"] {
                let key = "\(place).transition"
                let name = try string(transition, key: key)
                guard let known = PlaylistTransition(rawValue: name) else {
                    throw .invalidValue(file: nil, key: key, value: name, reason: "not cut or crossfade")
                }
                parsed.transition = known
            }
            items.append(parsed)
        }
        if let problem = Playlist.problem(items: items) {
            throw .invalidValue(file: nil, key: "\(path).items", value: "…", reason: problem)
        }
        var playlist = Playlist(items: items)
        if let fitValue = table["fit"] { playlist.fit = try fit(fitValue, key: "\(path).fit") }
        if let epochValue = table["epoch"] {
            guard let epoch = epochValue.double ?? epochValue.int.map(Double.init) else {
                throw .wrongType(file: nil, key: "\(path).epoch", expected: "seconds since 1970")
            }
            playlist.epoch = epoch
        }
        return (name, playlist)
    }

    /// A rule's `path`, `fit`, `rotate`, `loop` and `audio`: only with `content = "image"` or `"video"`, which need a
    /// `path`.
    private static func mediaItem(_ table: TOMLTable, path: String, content: ContentMode?) throws(RoleConfigError)
        -> MediaItem?
    {
        let isMedia = content == .image || content == .video
        guard isMedia else {
            if let key = ["path", "fit", "rotate", "loop", "audio"].first(where: { table[$0] != nil }) {
                throw .invalidValue(
                    file: nil, key: "\(path).content", value: content?.rawValue ?? "messages",
                    reason: "\(key) needs content = \"image\" or \"video\" in the same rule")
            }
            return nil
        }
        guard let pathValue = table["path"] else { throw .missingKey(file: nil, key: "\(path).path") }
        var item = MediaItem(path: try string(pathValue, key: "\(path).path"))
        if item.path.isEmpty || item.path.utf8.contains(0) {
            throw .invalidValue(file: nil, key: "\(path).path", value: item.path, reason: "a file's path")
        }
        if let fitValue = table["fit"] { item.fit = try fit(fitValue, key: "\(path).fit") }
        if let rotateValue = table["rotate"] {
            guard let degrees = rotateValue.int else {
                throw .wrongType(file: nil, key: "\(path).rotate", expected: "0, 90, 180 or 270")
            }
            guard let rotation = MediaRotation(rawValue: degrees) else {
                throw .invalidValue(
                    file: nil, key: "\(path).rotate", value: "\(degrees)", reason: "expected 0, 90, 180 or 270")
            }
            item.rotation = rotation
        }
        if let loopValue = table["loop"] {
            guard let loop = loopValue.bool else {
                throw .wrongType(file: nil, key: "\(path).loop", expected: "true or false")
            }
            item.loop = loop
        }
        if let audioValue = table["audio"] {
            guard let audio = audioValue.bool else {
                throw .wrongType(file: nil, key: "\(path).audio", expected: "true or false")
            }
            item.audio = audio
        }
        return item
    }

    static func checkKeys(_ table: TOMLTable, path: String?, allowed: [String]) throws(RoleConfigError) {
        for key in table.keys.sorted() where !allowed.contains(key) {
            throw .unknownKey(file: nil, key: path.map { "\($0).\(key)" } ?? key, expected: allowed)
        }
    }

    /// `fit`: one of ``MediaFit``'s names.
    private static func fit(_ value: TOMLValueConvertible, key: String) throws(RoleConfigError) -> MediaFit {
        let name = try string(value, key: key)
        guard let fit = MediaFit(rawValue: name) else {
            let fits = MediaFit.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidValue(file: nil, key: key, value: name, reason: "expected one of: \(fits)")
        }
        return fit
    }

    static func string(_ value: TOMLValueConvertible, key: String) throws(RoleConfigError) -> String {
        guard let text = value.string else { throw .wrongType(file: nil, key: key, expected: "a string") }
        return text
    }
}
