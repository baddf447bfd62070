import ArgumentParser
import Assets
import Fleet
import Foundation
import FrameTiming
import Logging
import Messaging
import MultiscreenApp
import Outputs
import PhoneRemote
import Product
import Remote
import Screens
import SystemCalls
import WebContent

/// `multiscreen run`: attach to the Wayland session and put a screen on every output until stopped.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run on $WAYLAND_DISPLAY (or --display) until SIGINT/SIGTERM.",
        discussion: """
            Exit status: 0 after SIGINT/SIGTERM, 1 when it cannot start (no compositor, required global \
            missing, EGL or shaders unusable, the control socket taken by another running Multiscreen, the \
            default socket directory not private), 3 when the compositor goes away, 4 on a protocol error, 64 \
            for a usage error.
            """)

    @OptionGroup var logging: LoggingOptions
    @Option(help: "Wayland display name or socket path (default: $WAYLAND_DISPLAY).")
    var display: String?
    @Option(
        help:
            "Control socket (default: $MULTISCREEN_SOCKET, else $XDG_RUNTIME_DIR/multiscreen/<display>.sock, named after --display or $WAYLAND_DISPLAY)."
    )
    var socket: String?
    @Option(
        help:
            "The config: role rules, [theme], [web], [fleet], [remote], [assets] (default: $XDG_CONFIG_HOME/multiscreen/config.toml)."
    )
    var config: String?
    @Option(help: "State file (default: $XDG_STATE_HOME/multiscreen/state.json).")
    var state: String?
    @Option(
        help: ArgumentHelp(
            "Join the fleet through this MQTT broker (mqtt://host[:port] or mqtts://…); the rest of [fleet] in the config applies.",
            valueName: "url"))
    var fleet: String?
    @Flag(
        help:
            "Photodiode / camera mode: a patch on every screen turns white or black with each frame that shows new messages (frame.shown says which, with its presented time)."
    )
    var flash = false
    @Option(help: "Side of the flash patch in logical pixels.")
    var flashSize = 64
    @Option(help: "Corner of the flash patch: top-left, top-right, bottom-left or bottom-right.")
    var flashCorner = "top-left"
    @Option(
        help:
            "When a screen draws a change: frame (on the frame callback, default), immediate, or deadline (as late as still makes the earliest presentation)."
    )
    var pacing = "frame"
    @Option(
        help:
            "How mirrors get the controller's picture: auto (one shared buffer, scaled by the compositor, on a software renderer), shared, or copy (each mirror draws it)."
    )
    var mirror = "auto"
    @Option(
        help: ArgumentHelp(
            "Serve the phone remote (a web page and WebSocket) at [HOST:]PORT; HOST defaults to 127.0.0.1.",
            discussion: """
                Give the address phones reach this machine by (e.g. 192.168.1.20:8080) to serve them. A [remote] \
                section in the config turns it on too; these flags override its keys.
                """,
            valueName: "[HOST:]PORT"))
    var remote: String?
    @Option(help: "Phone remote: seconds an unused code lasts before it is replaced (default 300).")
    var remoteTTL: Double?
    @Option(help: "Phone remote: seconds without a message before the controller loses control (default 60).")
    var remoteIdle: Double?
    @Option(help: "Phone remote: seconds of control before a fresh code is shown for the next visitor (default 300).")
    var remoteHold: Double?
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Phone remote over HTTPS/WSS with this certificate chain and key (PEM).", valueName: "CERT KEY"))
    var remoteTLS: [String] = []

    func validate() throws {
        guard FlashPatch.Corner(rawValue: flashCorner) != nil else {
            throw ValidationError("--flash-corner takes top-left, top-right, bottom-left or bottom-right")
        }
        guard (1...4096).contains(flashSize) else { throw ValidationError("--flash-size takes 1…4096") }
        guard FramePacing(rawValue: pacing) != nil else {
            throw ValidationError("--pacing takes frame, immediate or deadline")
        }
        guard MirrorPreferenceName(rawValue: mirror) != nil else {
            throw ValidationError("--mirror takes auto, shared or copy")
        }
        guard remoteTLS.isEmpty || remoteTLS.count == 2 else {
            throw ValidationError("--remote-tls takes two files: the certificate chain and the key")
        }
        do throws(RemoteConfigError) {
            if let remote { _ = try ListenAddress(remote, key: "--remote") }
            for (value, flag) in [
                (remoteTTL, "--remote-ttl"), (remoteIdle, "--remote-idle"), (remoteHold, "--remote-hold"),
            ] {
                if let value { _ = try RemoteConfig.checkDuration(value, key: flag) }
            }
        } catch {
            throw ValidationError(error.message)
        }
    }

    mutating func run() throws {
        logging.bootstrap()
        let logger = Logger(label: "multiscreen")
        do {
            let limit = try OpenFileLimit.raiseToHard()
            logger.debug("open file limit: \(limit.soft)")
        } catch {
            logger.warning("the open file limit stays as it was: \(error)")
        }
        let app: Application
        do {
            var options = Application.Options(display: display)
            options.configPath = config
            options.statePath = state
            options.pacing = FramePacing(rawValue: pacing)!
            options.mirror = MirrorPreferenceName(rawValue: mirror)!
            options.web = webConfiguration(logger: logger)
            options.assets =
                section("[assets]", logger: logger) { path throws(AssetConfigError) in try AssetConfig.load(path: path)
                }
                ?? AssetConfig()
            if flash { options.flash = FlashPatch(size: flashSize, corner: FlashPatch.Corner(rawValue: flashCorner)!) }
            let environment = ProcessInfo.processInfo.environment
            let socketPath = try socket ?? ControlSocket.defaultPath(display: display, environment: environment)
            if socket == nil && (environment["MULTISCREEN_SOCKET"] ?? "").isEmpty {
                // The default, inside $XDG_RUNTIME_DIR: its `multiscreen` directory must be private.
                try ControlSocket.makePrivateDirectory(of: socketPath)
            }
            let fleetConfig = fleetConfiguration(logger: logger)
            let remoteSetup = remoteConfiguration(logger: logger)
            if let (_, _, placement) = remoteSetup { options.remoteOffer = placement }
            app = try Application(options: options) { bus in
                var sources: [any MessageSource] = [try ControlServer(path: socketPath, bus: bus)]
                if let (address, remoteOptions, _) = remoteSetup {
                    let remoteLogger = Logger(label: "multiscreen.remote")
                    do {
                        sources.append(
                            try PhoneRemoteServer(
                                host: address.host, port: address.port, bus: bus, options: remoteOptions
                            ) { display, url in
                                switch display {
                                case .code:
                                    // Never the code or the link: whoever reads the journal could take control.
                                    remoteLogger.info("remote: a new access code is on the screens for \(url)")
                                case .inControl: remoteLogger.info("remote: someone is in control")
                                case .locked:
                                    remoteLogger.warning("remote: code entry locked after too many wrong codes")
                                }
                            })
                    } catch {
                        logger.error("phone remote not started: \(error); the screens run without it")
                    }
                }
                if let fleetConfig {
                    do {
                        var fleetOptions = FleetLink.Options()
                        fleetOptions.version = Multiscreen.version
                        sources.append(try FleetLink(config: fleetConfig, bus: bus, options: fleetOptions))
                    } catch {
                        logger.error("fleet link not started: \(error); the screens run without it")
                    }
                }
                return sources
            }
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(ExitStatus.startupFailure.rawValue)
        }
        let status = app.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// `[fleet]` from the config, with `--fleet` as its broker; nil for no fleet link. A broken section is logged
    /// and leaves the kiosk without a fleet link (its screens never depend on it).
    private func fleetConfiguration(logger: Logger) -> FleetConfig? {
        let loaded: FleetConfig??
        loaded = section("[fleet]", logger: logger) { path throws(FleetConfigError) in try FleetConfig.load(path: path)
        }
        guard case .some(var section) = loaded else {
            logger.error("fleet link not started: no usable [fleet]")
            return nil
        }
        do throws(FleetConfigError) {
            if let fleet {
                let broker = try BrokerAddress(fleet)
                section?.broker = broker
                if section == nil { section = FleetConfig(broker: broker) }
            }
            try section?.validate()
            return section
        } catch {
            logger.error("fleet link not started: \(error)")
            return nil
        }
    }

    /// `[web]` from the config, else from the last good config; with neither, pages may call nothing (a broken
    /// config must not widen what the `[web.permissions]` it meant to set allowed).
    private func webConfiguration(logger: Logger) -> WebConfig {
        section("[web]", logger: logger) { path throws(WebConfigError) in try WebConfig.load(path: path) }
            ?? WebConfig(permissions: PagePermissions(defaultMethods: []))
    }

    /// A section of the config read by `load`: from the config file, or, when that is broken, from the last config
    /// that was good on this kiosk (kept beside the state file), as the role rules are; nil when neither reads.
    /// Every failure is logged precisely.
    private func section<Section, Failure: Error>(
        _ name: String, logger: Logger, _ load: (String) throws(Failure) -> Section
    ) -> Section? {
        let path = config ?? RoleConfig.defaultPath()
        do {
            return try load(path)
        } catch {
            logger.error("\(name) not used: \(String(describing: error).logSafe)")
        }
        let lastGood = LastGoodConfig(stateFile: state ?? StateStore.defaultPath()).path
        guard FileManager.default.fileExists(atPath: lastGood) else { return nil }
        do {
            let section = try load(lastGood)
            logger.error("\(name) from the last good config (\(lastGood.logSafe)) until \(path.logSafe) is fixed")
            return section
        } catch {
            logger.error("\(name) not in the last good config either: \(String(describing: error).logSafe)")
            return nil
        }
    }

    /// The phone remote's address, options and where its QR code goes: `[remote]` from the config, each key
    /// overridden by its flag; nil when neither turns it on. A broken section is logged and leaves the kiosk
    /// without the remote.
    private func remoteConfiguration(
        logger: Logger
    ) -> (ListenAddress, PhoneRemoteServer.Options, RemoteOfferPlacement)? {
        let path = config ?? RoleConfig.defaultPath()
        let loaded = section("[remote]", logger: logger) { path throws(RemoteConfigError) in
            try RemoteConfig.load(path: path)
        }
        guard let loaded else { return nil }
        do throws(RemoteConfigError) {
            let section = loaded
            guard section != nil || remote != nil else { return nil }
            let address: ListenAddress
            if let remote {
                address = try ListenAddress(remote, key: "--remote")
            } else if let listen = section?.listen {
                address = listen
            } else {
                throw RemoteConfigError("\(path): [remote] needs listen = \"[HOST:]PORT\" (or run --remote)")
            }
            var options = PhoneRemoteServer.Options()
            let policy = options.hub.policy
            options.hub.policy.ttl = remoteTTL ?? section?.ttl ?? policy.ttl
            options.hub.policy.idle = remoteIdle ?? section?.idle ?? policy.idle
            options.hub.policy.hold = remoteHold ?? section?.hold ?? policy.hold
            options.extraHosts = section?.allowOrigins ?? []
            if remoteTLS.count == 2 {
                options.tls = TLSFiles(certificate: remoteTLS[0], key: remoteTLS[1])
            } else {
                options.tls = section?.tls
            }
            if let methods = section?.methods { options.hub.methods = methods }
            return (address, options, section?.qrPlacement ?? RemoteOfferPlacement())
        } catch {
            logger.error("phone remote not started: \(error)")
            return nil
        }
    }
}
