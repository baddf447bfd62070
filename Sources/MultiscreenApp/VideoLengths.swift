import Logging
import Media
import Messaging
import SystemCalls
import Wayland

/// Which lengths of the playlists' videos that play their own (items without seconds) are measured, being measured,
/// or failed and due again. The measuring itself is the media reader's (``MediaScreens/measureLength(of:at:)``, off
/// the display thread); this owner decides what to ask for and when, and hands each result on (``onLength``).
///
/// Each video is measured once per run, whatever the saved state says (the file may have changed while Multiscreen
/// was not running), and again when its item names another file (an asset fetched anew). A failure is measured again
/// after 2 s, doubling to 5 min, as a screen's unreadable file is read again: the file may be copied in later. Its
/// retry timer is armed only while a failure waits, so lengths cost no wakeup once measured.
final class VideoLengths {
    private enum Measurement {
        /// Asked for; `retry` is the wait before measuring again should it fail.
        case measuring(path: String, retry: Double)
        case measured(path: String)
        case failed(path: String, retryAt: UInt64, retry: Double)

        var path: String {
            switch self {
            case .measuring(let path, _), .measured(let path), .failed(let path, _, _): path
            }
        }
    }

    /// Source → the file its item plays and how far its measurement is.
    private var measurements: [String: Measurement] = [:]
    private let timer: OneShotTimer
    private let logger: Logger
    /// Measures the video at a path for a source, off the display thread.
    var measure: (_ source: String, _ path: String) -> Void = { _, _ in }
    /// A length arrived (`length`), or the video could not be measured (`failure`).
    var onLength: (_ source: String, _ length: Double?, _ failure: String?) -> Void = { _, _, _ in }

    static let firstRetry = 2.0
    static let longestRetry = 300.0

    init(loop: EventLoop, logger: Logger) throws {
        timer = try OneShotTimer(on: loop)
        self.logger = logger
        timer.fired = { [unowned self] in retryDue() }
    }

    /// The videos the playlists play their own length of, by source, each with its file
    /// (``ScreenModel/videosPlayingTheirLength``), after each outcome: any not measured from that file this run is.
    func sync(_ videos: [String: String]) {
        measurements = measurements.filter { videos[$0.key] == $0.value.path }
        for (source, path) in videos where measurements[source] == nil {
            measurements[source] = .measuring(path: path, retry: Self.firstRetry)
            measure(source, path)
        }
        armTimer()
    }

    /// The reader measured `path` for `source`: handed on, unless the item names another file by now.
    func took(_ source: String, path: String, _ result: Result<Double, MediaError>) {
        guard case .measuring(path, let retry)? = measurements[source] else { return }
        switch result {
        case .success(let length):
            measurements[source] = .measured(path: path)
            logger.info("video length \(length) s: \(path.logSafe)")
            onLength(source, length, nil)
        case .failure(let error):
            let retryAt = MonotonicClock.nanoseconds() + UInt64(retry * 1e9)
            measurements[source] = .failed(path: path, retryAt: retryAt, retry: min(retry * 2, Self.longestRetry))
            logger.warning("no length for \(source.logSafeURL): \(error); its item is left out until it has one")
            onLength(source, nil, error.description)
        }
        armTimer()
    }

    private func retryDue() {
        let now = MonotonicClock.nanoseconds()
        for (source, measurement) in measurements {
            guard case .failed(let path, let retryAt, let retry) = measurement, retryAt <= now else { continue }
            measurements[source] = .measuring(path: path, retry: retry)
            measure(source, path)
        }
        armTimer()
    }

    private func armTimer() {
        let dues = measurements.values.compactMap { measurement -> UInt64? in
            if case .failed(_, let retryAt, _) = measurement { return retryAt }
            return nil
        }
        timer.arm(atMonotonic: dues.min())
    }
}
