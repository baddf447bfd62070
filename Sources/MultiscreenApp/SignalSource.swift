import CLinux
import Glibc
import Logging
import SystemCalls
import Wayland

/// SIGINT, SIGTERM (stop) and SIGHUP (reload the config) delivered as a readable file descriptor (signalfd), so the
/// display thread handles them in its poll like any other event, with no async-signal-safety concerns.
///
/// The signals are blocked for the whole process before any thread starts; threads inherit the mask. The descriptor
/// is watched from ``watch(on:logger:reload:stop:)`` (the loop comes later: the connection is made after the threads).
final class SignalSource {
    private let fd: Int32

    init(signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        try threadCall("pthread_sigmask", pthread_sigmask(SIG_BLOCK, &mask, nil))
        fd = try systemCall("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
    }

    deinit { close(fd) }

    /// Watches the signals on `loop` from now on: SIGHUP calls `reload`, any other `stop`.
    func watch(on loop: EventLoop, logger: Logger, reload: @escaping () -> Void, stop: @escaping () -> Void) {
        loop.watch(fd) { [unowned self] in
            for number in read() {
                if number == SIGHUP {
                    reload()
                } else {
                    logger.info("received signal \(number), shutting down")
                    stop()
                }
            }
        }
    }

    /// Reads pending signals; returns their numbers.
    private func read() -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        while Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            received.append(Int32(info.ssi_signo))
        }
        return received
    }
}
