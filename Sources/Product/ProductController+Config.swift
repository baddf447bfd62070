import ConfigFile
import Foundation
import Logging
import Outputs
import Screens

/// The config: read at start (``load(configPath:statePath:remoteOfferPlacement:logger:)``) and again on SIGHUP
/// (``reloadConfig()``); a config that cannot be used never stops Multiscreen.
extension ProductController {
    /// Reads the config and the restored state. Neither can stop Multiscreen: a corrupt state file is set aside by
    /// ``StateStore`` and reported; a broken config is reported and replaced by the last good one, or, with none,
    /// by the fail-safe (``ConfigStanding/Source/failSafe``): never by the defaults, which would put the controller
    /// UI on the first output, a screen the broken file's rules may have made public.
    /// - Parameter remoteOfferPlacement: where the phone remote's offer goes (`[remote]`), not part of config.toml's
    ///   roles: the run's options say it.
    public static func load(
        configPath: String?, statePath: String?, remoteOfferPlacement: RemoteOfferPlacement = RemoteOfferPlacement(),
        logger: Logger
    ) -> ProductController {
        let source = (path: configPath ?? RoleConfig.defaultPath(), mustExist: configPath != nil)
        let store = StateStore(path: statePath ?? StateStore.defaultPath())
        let lastGood = LastGoodConfig(stateFile: store.path)
        var standing = ConfigStanding(path: source.path, source: .file)
        let config: RoleConfig
        switch readConfig(source, lastGood: lastGood, logger: logger) {
        case .success(let read):
            config = read
            if !FileManager.default.fileExists(atPath: source.path) { standing.source = .defaults }
        case .failure(let error):
            standing.error = error.description
            if let kept = lastGood.load() {
                config = kept
                standing.source = .lastGood
                logger.error(
                    "config \(source.path.logSafe) not used; running on the last good config (\(lastGood.path.logSafe))"
                )
            } else {
                config = ConfigStanding.failSafeConfig
                standing.source = .failSafe
                logger.error(
                    "config \(source.path.logSafe) not used and none was good before: every screen external, no controller UI"
                )
            }
        }
        let loaded = store.load()
        if let warning = loaded.warning { logger.error("\(warning.logSafe)") }
        logger.info(
            "state \(store.path): \(loaded.state.cards.count) cards, \(loaded.state.messages.count) messages restored")
        var product = ProductController(
            model: ScreenModel(config: config, state: loaded.state), store: store,
            remoteOfferPlacement: remoteOfferPlacement, logger: logger)
        product.configSource = source
        product.configStanding = standing
        return product
    }

    /// The config, or why it cannot be used (logged, saying exactly what is wrong). A config that reads is kept as
    /// the last good one.
    private static func readConfig(
        _ source: (path: String, mustExist: Bool), lastGood: LastGoodConfig, logger: Logger
    ) -> Result<RoleConfig, RoleConfigError> {
        do throws(RoleConfigError) {
            let text: String?
            do throws(ConfigFile.Problem) {
                text = try ConfigFile.text(at: source.path)
            } catch {
                throw .unreadable(file: source.path, reason: error.message)
            }
            guard let text else {
                if source.mustExist {
                    throw .unreadable(file: source.path, reason: "no such file (it was named explicitly)")
                }
                logger.info("config \(source.path.logSafe): none, the defaults")
                return .success(RoleConfig())
            }
            let config: RoleConfig
            do {
                config = try RoleConfig.parse(text)
            } catch {
                throw error.inFile(source.path)
            }
            logger.info("config \(source.path.logSafe): \(config.rules.count) role rules")
            do {
                try lastGood.remember(text: text)
            } catch {
                logger.warning(
                    "the last good config could not be kept at \(lastGood.path.logSafe): \(String(describing: error).logSafe)"
                )
            }
            return .success(config)
        } catch {
            logger.error("config not used, \(String(describing: error).logSafe)")
            return .failure(error)
        }
    }

    /// Reads the config file again (SIGHUP) and reassigns roles; a config that cannot be used leaves the current
    /// one in force.
    public mutating func reloadConfig() -> Outcome {
        guard let source = configSource else { return Outcome() }
        logger.info("reloading the config (SIGHUP)")
        let config: RoleConfig
        switch Self.readConfig(source, lastGood: LastGoodConfig(stateFile: store.path), logger: logger) {
        case .success(let read):
            config = read
            configStanding = ConfigStanding(
                path: source.path, source: FileManager.default.fileExists(atPath: source.path) ? .file : .defaults)
        case .failure(let error):
            logger.error("the previous config stays in force")
            configStanding.error = error.description
            if configStanding.source == .file || configStanding.source == .defaults {
                configStanding.source = .previous
            }
            return Outcome()
        }
        let themeChanged = config.theme != model.roles.config.theme
        let (kinds, schedules) = (self.kinds, scheduleChoices)
        var reassigned = Outcome()
        absorb(model.replace(config: config), into: &reassigned)
        // Items, schedules and power as the new config has them, each change told (`playlist.item`, `power.changed`,
        // …). A screen whose content the new config changed (its rule's page, picture, playlist) redraws; every other
        // one is left as it was: its video plays on, its page is not reloaded, its playlist keeps its turn.
        var outcome = advancePlaylists(now: Date(), schedulesBefore: schedules, kindsBefore: kinds)
        outcome.events = reassigned.events + outcome.events
        outcome.changes.assignment = reassigned.changes.assignment
        outcome.changes.controllerUI = true
        // A new look redraws every screen, even when no role changed.
        if themeChanged { outcome.changes.everyScreen = true }
        return outcome
    }
}
