import COnDemandLibraries
import CSystemd
import Foundation
import Glibc
import Logging
import Wayland

/// Tells systemd how the service is doing, when Multiscreen runs as a `Type=notify` unit (`contrib/systemd/`):
/// `READY=1` once the screens are being opened, `WATCHDOG=1` from the display thread's own loop while
/// `WatchdogSec=` is set (so a display thread that hangs is restarted), `STOPPING=1` at shutdown. Without a service
/// manager (`$NOTIFY_SOCKET` unset) every call is a no-op, libsystemd is never loaded (it is opened on demand, see
/// COnDemandLibraries) and no timer exists: an idle Multiscreen still makes no wakeups. With a watchdog, the pings
/// are its only wakeups, at half the interval systemd asks for.
final class ServiceManager {
    /// Whether there is a service manager to tell, and libsystemd loaded to tell it.
    private let notifies: Bool
    /// Fires when the next watchdog ping is due (on the display thread's loop); nil without a watchdog.
    private let watchdogTimer: OneShotTimer?
    private let interval: Double
    private let logger: Logger

    init(loop: EventLoop, logger: Logger) throws {
        self.logger = logger
        notifies = Self.openLibrary(logger: logger)
        if notifies, let microseconds = Self.watchdogMicroseconds() {
            interval = Double(microseconds) / 2e6
            watchdogTimer = try OneShotTimer(on: loop)
            logger.info("systemd watchdog: pinging every \(interval) s")
        } else {
            interval = 0
            watchdogTimer = nil
        }
        watchdogTimer?.fired = { [unowned self] in ping() }
    }

    /// The screens are being opened: the service is up.
    func ready() {
        notify("READY=1")
        ping()
    }

    /// The watchdog timer fired (or the service just started): the display thread is alive.
    private func ping() {
        guard let watchdogTimer else { return }
        notify("WATCHDOG=1")
        watchdogTimer.arm(after: interval)
    }

    func stopping() { notify("STOPPING=1") }

    /// The watchdog interval systemd asks this process to keep, if it asks: libsystemd's answer when the unit's main
    /// process is Multiscreen itself; else `$WATCHDOG_USEC` when `$WATCHDOG_PID` is Multiscreen's parent. In the kiosk
    /// unit cage is the main process and Multiscreen its client, and with `NotifyAccess=all` systemd takes the pings
    /// from any process of the unit; libsystemd answers only for the process `$WATCHDOG_PID` names, and without the
    /// parent's case cage's kiosk would be killed for silence every `WatchdogSec=`.
    private static func watchdogMicroseconds() -> UInt64? {
        var microseconds: UInt64 = 0
        if sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 { return microseconds }
        let environment = ProcessInfo.processInfo.environment
        guard let pid = environment["WATCHDOG_PID"].flatMap({ pid_t($0) }), pid == getppid(),
            let asked = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), asked > 0
        else { return nil }
        return asked
    }

    /// Loads libsystemd when a service manager waits for news (`$NOTIFY_SOCKET`, which is also where the watchdog's
    /// pings go). - Returns: whether it is loaded.
    private static func openLibrary(logger: Logger) -> Bool {
        guard ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil else { return false }
        if let failure = multiscreen_open_library(on_demand_systemd) {
            logger.error(
                "a service manager waits for news (NOTIFY_SOCKET) but libsystemd cannot be loaded: \(String(cString: failure)); readiness and the watchdog are not reported"
            )
            return false
        }
        return true
    }

    private func notify(_ state: String) {
        guard notifies else { return }
        let result = sd_notify(0, state)
        if result < 0 { logger.warning("sd_notify \(state) failed: error \(-result)") }
    }
}
