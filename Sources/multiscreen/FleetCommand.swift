import ArgumentParser
import Fleet
import Foundation
import Messaging
import Outputs
import Screens

/// `multiscreen fleet send|card|playlist|status|watch`: the operator's side of the fleet, talking to the broker
/// directly.
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Command kiosks and watch them through the fleet's MQTT broker.",
        discussion: """
            The broker, site, TLS files and credentials file come from [fleet] in the config unless given here. \
            Targets: --kiosk K, --group G or --all (the whole site). Each kiosk that applies a command answers on \
            multiscreen/<site>/<kiosk>/reply; one line per reply is printed, "<kiosk> <reply JSON>". \
            Exit status: 0 every reply was a result; 1 an error reply or a broker error; 2 no reply in time \
            (--kiosk) or fewer than --expect replies; 64 bad usage.
            """,
        subcommands: [Send.self, Card.self, RetainedPlaylist.self, Capture.self, Status.self, Watch.self])

    /// How to reach the broker.
    struct BrokerOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp("The broker (default: [fleet] broker, else mqtt://127.0.0.1:1883).", valueName: "url"))
        var broker: String?
        @Option(help: ArgumentHelp("The site (default: [fleet] site, else \"default\").", valueName: "site"))
        var site: String?
        @Option(help: ArgumentHelp("The config holding [fleet] (default: the kiosk's config.toml).", valueName: "path"))
        var config: String?
        @Option(help: ArgumentHelp("username:password file (default: [fleet] credentials).", valueName: "path"))
        var credentials: String?

        func settings() throws -> FleetConfig {
            var settings: FleetConfig
            do throws(FleetConfigError) {
                let section = try FleetConfig.load(path: config ?? RoleConfig.defaultPath())
                let fallback = FleetConfig(broker: try BrokerAddress("mqtt://127.0.0.1:1883"))
                settings = section ?? fallback
                if let broker { settings.broker = try BrokerAddress(broker) }
                if let site {
                    try FleetConfig.checkName(site, key: "site")
                    settings.site = site
                }
                if let credentials { settings.credentialsFile = credentials }
            } catch {
                throw ValidationError("\(error)")
            }
            return settings
        }

        func connect(_ settings: FleetConfig) throws -> FleetOperator {
            do {
                let client = try FleetOperator(settings: settings)
                try client.connect()
                return client
            } catch {
                printError("multiscreen fleet: \(error)")
                throw ExitCode(1)
            }
        }
    }

    /// Which kiosks: one, a group, or the whole site; at most one of them (some commands need exactly one).
    struct TargetChoice: ParsableArguments {
        @Option(help: ArgumentHelp("One kiosk.", valueName: "name"))
        var kiosk: String?
        @Option(help: ArgumentHelp("Every kiosk of a group.", valueName: "name"))
        var group: String?
        @Flag(help: "Every kiosk of the site.")
        var all = false

        func validate() throws {
            if chosen > 1 { throw ValidationError("give one of --kiosk, --group, --all") }
            if let kiosk { try check(kiosk, "kiosk") }
            if let group { try check(group, "group") }
        }

        private func check(_ name: String, _ key: String) throws {
            do throws(FleetConfigError) { try FleetConfig.checkName(name, key: key) } catch {
                throw ValidationError("\(error)")
            }
        }

        /// The topic level the choice names: the kiosk, the group, or `all`.
        var target: String { kiosk ?? group ?? FleetTopics.all }
        var chosen: Int { [kiosk != nil, group != nil, all].filter { $0 }.count }
    }

    /// Which kiosks a command is for, and how long to wait for their replies.
    struct TargetOptions: ParsableArguments {
        @OptionGroup var choice: TargetChoice
        @Option(help: ArgumentHelp("Seconds to wait for replies (default 3; fleet capture: 15).", valueName: "seconds"))
        var timeout: Double?
        @Option(help: ArgumentHelp("Stop after this many replies (default: 1 with --kiosk).", valueName: "n"))
        var expect: Int?
        @Option(
            help: ArgumentHelp(
                "The request id (default: a new UUID); resending an id is applied once.", valueName: "id"))
        var id: String?

        var kiosk: String? { choice.kiosk }
        var target: String { choice.target }
        var chosen: Int { choice.chosen }
        /// How long to wait for replies when `--timeout` does not say.
        static let defaultTimeout = 3.0
    }

    /// Publishes `message` to the target and hands each reply to `handle` (by default: printed as it came); the exit
    /// status says how it went.
    static func request(
        _ message: Message, broker: BrokerOptions, target: TargetOptions,
        timeout: Double = TargetOptions.defaultTimeout,
        handle: (_ kiosk: String, _ reply: [String: JSONValue], _ payload: [UInt8]) throws -> Void = {
            kiosk, _, payload in
            print("\(kiosk) \(String(decoding: payload, as: UTF8.self))")
        }
    ) throws {
        if target.chosen != 1 { throw ValidationError("give one of --kiosk, --group, --all") }
        let settings = try broker.settings()
        let client = try broker.connect(settings)
        defer { client.disconnect() }
        let id = target.id ?? UUID().uuidString.lowercased()
        let expected = target.expect ?? (target.kiosk != nil ? 1 : Int.max)
        var replies = 0
        var failed = false
        do {
            try client.subscribe(["\(FleetTopics.root)/\(settings.site)/+/reply"])
            try client.publish(
                topic: FleetTopics.command(site: settings.site, target: target.target),
                payload: FleetOperator.request(message, id: id))
            let deadline = FleetOperator.now() + (target.timeout ?? timeout)
            while replies < expected && FleetOperator.now() < deadline {
                try client.step(until: deadline) { client.hasMessages }
                for received in client.takeMessages() {
                    guard
                        let kiosk = FleetTopics.kiosk(in: received.topic, site: settings.site, leaf: "reply"),
                        case .object(let reply)? = try? JSONValue.parse(received.payload),
                        reply["id"] == .string(id)
                    else { continue }
                    replies += 1
                    if reply["error"] != nil { failed = true }
                    try handle(kiosk, reply, received.payload)
                }
                if replies >= expected { break }
            }
        } catch {
            printError("multiscreen fleet: \(error)")
            throw ExitCode(1)
        }
        if failed { throw ExitCode(1) }
        if replies == 0 || (target.expect != nil && replies < expected) {
            printError("multiscreen fleet: \(replies) replies to \(id) within \(target.timeout ?? timeout) s")
            throw ExitCode(2)
        }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send", abstract: "A message for the target kiosks' screens.")
        @OptionGroup var broker: BrokerOptions
        @OptionGroup var target: TargetOptions
        @Option(help: ArgumentHelp("Only this screen of each kiosk.", valueName: "name"))
        var screen: String?
        @Argument(help: "The text (one argument; quote it).")
        var text: String

        func run() throws {
            try FleetCommand.request(.send(text: text, screen: screen), broker: broker, target: target)
        }
    }

    struct Card: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "card",
            abstract: "Open or close a card on the target kiosks.", subcommands: [Open.self, Close.self])

        struct Open: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "open")
            @OptionGroup var broker: BrokerOptions
            @OptionGroup var target: TargetOptions
            @Option(help: ArgumentHelp("The screen.", valueName: "name"))
            var screen: String
            @Argument(help: "The card's text.")
            var text: String

            func run() throws {
                try FleetCommand.request(.openCard(screen: screen, text: text), broker: broker, target: target)
            }
        }

        struct Close: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "close")
            @OptionGroup var broker: BrokerOptions
            @OptionGroup var target: TargetOptions
            @Option(help: ArgumentHelp("The screen.", valueName: "name"))
            var screen: String

            func run() throws { try FleetCommand.request(.closeCard(screen: screen), broker: broker, target: target) }
        }
    }

    /// A playlist document retained for a kiosk, a group or the site (docs/fleet.md, "A playlist for a group"): a
    /// desired state that every kiosk it reaches applies at each connection, not a command applied once.
    struct RetainedPlaylist: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "playlist",
            abstract: "Retain a playlist for a kiosk, a group or the site (--clear withdraws it).",
            discussion: """
                An ITEM is PATH_OR_URL[@SECONDS] as for `multiscreen playlist set`: a file on the kiosks (inside \
                their [fleet] media) or a web page's URL, shown for SECONDS (default 10). The document is retained \
                on multiscreen/<site>/<target>/playlist: a kiosk that connects later, or again, plays it too. A \
                kiosk plays the most specific one it has: its own, its first group's, then the site's (--all); \
                withdrawing one clears its screens unless a less specific one remains.
                """)
        @OptionGroup var broker: BrokerOptions
        @OptionGroup var choice: TargetChoice
        @Flag(help: "Withdraw the target's playlist (its screens are cleared unless a less specific one remains).")
        var clear = false
        @Option(name: .customLong("screen"), help: ArgumentHelp("A screen (repeat for several).", valueName: "name"))
        var screens: [String] = []
        @Flag(help: "Every screen that is not the controller, those plugged in later too.")
        var allExternal = false
        @Option(help: "How each picture fills the screen: contain, cover, stretch or center.")
        var fit: MediaFit?
        @Option(help: "When a cycle through the items began, in seconds since 1970 (default 0: the same everywhere).")
        var epoch: Double?
        @Argument(help: ArgumentHelp("The items.", valueName: "PATH_OR_URL[@SECONDS]"))
        var items: [String] = []

        func validate() throws {
            guard choice.chosen == 1 else { throw ValidationError("give one of --kiosk, --group, --all") }
            if clear {
                guard items.isEmpty, screens.isEmpty, !allExternal, fit == nil, epoch == nil else {
                    throw ValidationError("--clear takes no items, screens, --fit or --epoch")
                }
                return
            }
            guard screens.isEmpty != !allExternal else {
                throw ValidationError("give --screen NAME… or --all-external")
            }
            if let problem = Playlist.problem(items: try PlaylistCommand.items(items)) {
                throw ValidationError(problem)
            }
        }

        /// What is retained: the document, or nothing (withdrawn).
        func payload() throws -> [UInt8] {
            if clear { return [] }
            let document = DesiredPlaylist(
                items: try PlaylistCommand.items(items).map {
                    DesiredPlaylist.item(source: $0.source, seconds: $0.seconds)
                },
                fit: fit?.rawValue, epoch: epoch, screens: allExternal ? .allExternal : .named(screens))
            return Array(document.document.serialized.utf8)
        }

        func run() throws {
            let settings = try broker.settings()
            let topic = FleetTopics.playlist(site: settings.site, target: choice.target)
            let payload = try payload()
            let client = try broker.connect(settings)
            defer { client.disconnect() }
            do {
                try client.publish(topic: topic, payload: payload, qos: 1, retain: true)
            } catch {
                printError("multiscreen fleet: \(error)")
                throw ExitCode(1)
            }
            // The digest is what each kiosk's status reports for the document in force (`fleetPlaylist`).
            print(
                clear
                    ? "withdrawn: \(topic)"
                    : "retained on \(topic): \(items.count) items, digest \(DesiredPlaylist.digest(of: payload))")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Ask the target kiosks for their status now (one reply each).",
            discussion: """
                Without --kiosk, --group or --all: what the broker retained, every kiosk of the site with its online \
                state and last status, one line each (as `fleet watch` prints them), then exit.
                """)
        @OptionGroup var broker: BrokerOptions
        @OptionGroup var target: TargetOptions
        @Flag(help: "Without a target: print status documents whole.")
        var json = false

        func run() throws {
            if target.chosen == 1 {
                try FleetCommand.request(.status, broker: broker, target: target)
                return
            }
            let settings = try broker.settings()
            let client = try broker.connect(settings)
            defer { client.disconnect() }
            let site = settings.site
            do {
                try client.subscribe([
                    "\(FleetTopics.root)/\(site)/+/online", "\(FleetTopics.root)/\(site)/+/status",
                ])
                // The broker sends what it retained right after the SUBACK: read until it goes quiet.
                var lines: [String] = []
                let deadline = FleetOperator.now() + (target.timeout ?? TargetOptions.defaultTimeout)
                while FleetOperator.now() < deadline {
                    try client.step(until: min(deadline, FleetOperator.now() + 0.3)) { client.hasMessages }
                    // Only what the broker retained: a live update meanwhile would list a kiosk twice.
                    let messages = client.takeMessages()
                    if messages.isEmpty { break }
                    lines += messages.filter(\.retained).compactMap { Watch.line(for: $0, site: site, json: json) }
                }
                for line in lines { print(line) }
            } catch {
                printError("multiscreen fleet: \(error)")
                throw ExitCode(1)
            }
        }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "List the site's kiosks with online state and last status, then follow changes live.",
            discussion: """
                One line per change: "<kiosk> online" / "<kiosk> offline", and "<kiosk> status <JSON>" (--json) or \
                a summary (screens, roles, version, uptime). Starts with what the broker retained.
                """)
        @OptionGroup var broker: BrokerOptions
        @Flag(help: "Print status documents whole.")
        var json = false
        @Option(help: ArgumentHelp("Stop after this many lines.", valueName: "n"))
        var count: Int?
        @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
        var timeout: Double?

        func run() throws {
            let settings = try broker.settings()
            let client = try broker.connect(settings)
            defer { client.disconnect() }
            let site = settings.site
            var printed = 0
            let deadline = timeout.map { FleetOperator.now() + $0 } ?? .infinity
            do {
                try client.subscribe([
                    "\(FleetTopics.root)/\(site)/+/online", "\(FleetTopics.root)/\(site)/+/status",
                ])
                while FleetOperator.now() < deadline && printed < (count ?? .max) {
                    try client.step(until: min(deadline, FleetOperator.now() + 1)) { client.hasMessages }
                    for message in client.takeMessages() {
                        guard let line = Self.line(for: message, site: site, json: json) else { continue }
                        print(line)
                        fflush(nil)
                        printed += 1
                        if printed >= (count ?? .max) { break }
                    }
                }
            } catch {
                printError("multiscreen fleet: \(error)")
                throw ExitCode(1)
            }
        }

        static func line(for message: MosquittoMessage, site: String, json: Bool) -> String? {
            let text = String(decoding: message.payload, as: UTF8.self)
            if let kiosk = FleetTopics.kiosk(in: message.topic, site: site, leaf: "online") {
                return "\(kiosk) \(text == "true" ? "online" : "offline")"
            }
            guard let kiosk = FleetTopics.kiosk(in: message.topic, site: site, leaf: "status") else { return nil }
            if json { return "\(kiosk) status \(text)" }
            guard case .object(let status)? = try? JSONValue.parse(message.payload) else {
                return "\(kiosk) status (unreadable)"
            }
            var screens: [String] = []
            if case .array(let entries)? = status["screens"] {
                for entry in entries {
                    let fields = entry.objectValue
                    guard case .string(let name)? = fields["name"] else { continue }
                    var summary = name
                    if case .string(let role)? = fields["role"] { summary += " \(role)" }
                    if case .string(let content)? = fields["content"] { summary += "/\(content)" }
                    if case .integer(let width)? = fields["width"], case .integer(let height)? = fields["height"] {
                        summary += " \(width)x\(height)"
                    }
                    screens.append(summary)
                }
            }
            var parts = ["\(kiosk) status: \(screens.count) screens (\(screens.joined(separator: ", ")))"]
            if case .string(let version)? = status["version"] { parts.append("version \(version)") }
            if case .integer(let uptime)? = status["uptimeSeconds"] { parts.append("up \(uptime) s") }
            // The retained playlist document in force there: its topic's target and digest.
            let playlist = status["fleetPlaylist"]?.objectValue ?? [:]
            if case .string(let topic)? = playlist["topic"], case .string(let digest)? = playlist["digest"] {
                let target = topic.split(separator: "/").dropLast().last.map(String.init) ?? topic
                parts.append("playlist \(target) \(digest)")
            }
            return parts.joined(separator: ", ")
        }
    }
}

private func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
