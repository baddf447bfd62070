import FrameTiming
import Logging
import Messaging
import Outputs
import Rendering
import Screens
import Wayland

/// When one screen draws and what became of each frame it committed: the dirty flag and pacing (``FrameScheduler``,
/// the deadline predictor), the outstanding frame callbacks, presentation feedbacks and compositor sync, the frame
/// statistics, and each message followed to the frame that first shows it (``MessageLatencyTracker``). The
/// ``Screen``'s window draws and commits; this says whether it may, and hears back from the compositor.
///
/// Owns the frame callbacks, feedbacks and sync it requests; ``tearDown()`` cancels them with the window.
final class FrameTimeline {
    /// Outstanding frame callbacks by frame number: under `immediate` and `deadline` pacing a frame may be
    /// committed before the previous one's callback came, and each callback still says when its frame was taken.
    private var frameCallbacks: [UInt64: FrameCallback] = [:]
    private var feedbacks: [ObjectIdentifier: PresentationFeedback] = [:]
    /// The `wl_display.sync` sent after the last commit: until it comes back nothing more is drawn (see
    /// ``FrameScheduler``), so a hung compositor can neither block us in `eglSwapBuffers` nor get a pile of commits.
    private var compositorSync: FrameCallback?
    private(set) var scheduler = FrameScheduler()
    private(set) var statistics = FrameStatistics()
    private var compositorSendsPresented = false
    private let logger: Logger
    /// Message → shown, per message: which frame first shows each message and when it was shown.
    private var latencyTracker = MessageLatencyTracker()
    /// The last minute's message latency and the totals, for `status` and the controller UI.
    private(set) var latency = ScreenLatency()
    /// Counts commits, so feedback and frame callbacks name the frame they belong to.
    private var frameNumber: UInt64 = 0
    /// Photodiode mode: the patch, its colour now, and the colour each frame carrying messages gave it.
    private let flash: FlashPatch?
    private let pacing: FramePacing
    /// `deadline` pacing: when the pending change is to be drawn (`CLOCK_MONOTONIC`), and what predicts it.
    private(set) var drawAt: UInt64?
    private var predictor = DeadlinePredictor()
    /// Commit times (`CLOCK_MONOTONIC`) of recent frames, for the predictor's commit → presented.
    private var commitTimes: [UInt64: UInt64] = [:]
    private var patchWhite = false
    private var patchByFrame: [UInt64: Bool] = [:]

    /// A frame that carried messages was shown (presented, or the frame-done fallback), or messages were lost.
    var onLatencyReport: (FrameLatencyReport) -> Void = { _ in }
    /// The compositor showed a frame (its frame callback arrived): its number, as ``framesCommitted`` counted it.
    var onShown: (UInt64) -> Void = { _ in }
    /// Frames committed so far; the newest one's number.
    var framesCommitted: UInt64 { frameNumber }

    /// More feedback objects than this in flight means the compositor is not answering them (sway 1.7 headless
    /// never sends `presented` for some frames): stop asking rather than pile them up.
    static let maximumOutstandingFeedbacks = 4
    /// Frame callbacks kept outstanding at most (more only pile up where the compositor sends none).
    static let maximumOutstandingCallbacks = 8
    /// A sync not answered within this long (ns) means the compositor was not running meanwhile.
    static let unresponsiveAfter: UInt64 = 1_000_000_000

    init(flash: FlashPatch?, pacing: FramePacing, logger: Logger) {
        self.flash = flash
        self.pacing = pacing
        self.logger = logger
    }

    /// Since when (``MonotonicClock`` ns) this screen has had content the compositor has not shown yet: set when
    /// content changes, cleared when a frame callback says the compositor showed what was committed. What
    /// ``ScreenSet`` judges staleness by.
    private(set) var unshownSince: UInt64?
    /// When the compositor last showed a frame of this screen (frame callback; ``MonotonicClock`` ns).
    private(set) var lastShownAt: UInt64?
    /// When this screen's newest frame was committed (``MonotonicClock``): where a web page's frame leaves us.
    private(set) var lastCommittedAt: UInt64?

    /// Something the screen shows changed.
    func invalidate() {
        scheduler.invalidate()
        if unshownSince == nil { unshownSince = MonotonicClock.nanoseconds() }
    }

    var needsDrawing: Bool { scheduler.isDirty }

    /// Whether the compositor has yet to answer this screen's last frame (its frame callback, or the sync after it).
    var waitsForCompositor: Bool { scheduler.awaitsFrameCallback || !scheduler.mayCommit }

    /// A new window, or a configure to answer with a commit at once: a pending frame callback is not waited for.
    func reset() { scheduler.reset() }

    /// The output was off (by schedule) and is on again: a frame callback from before may never come, and the time
    /// content waited while the output was off is not the compositor's fault.
    func outputTurnedOn() {
        scheduler.reset()
        unshownWaitStartsNow()
    }

    /// The time content has waited so far is not this screen's staleness (the output was off, or the compositor
    /// was not running: a sync took longer than ``unresponsiveAfter``); if content still waits, it waits from now.
    func unshownWaitStartsNow() {
        if unshownSince != nil { unshownSince = MonotonicClock.nanoseconds() }
    }

    /// Drawn inside the spanning window instead of a window of its own (which answers for its showing).
    func drawnElsewhere() {
        scheduler.drawnElsewhere()
        // The spanning window's own screen follows these messages to its frames.
        latencyTracker.forgetWaiting()
        unshownSince = nil
    }

    /// A new message arrived: redraw unless this screen is blank. Every other kind shows it somehow: the controller
    /// in its log, `messages` as the newest message, `card` without a card as messages, `mirror` through the
    /// controller it mirrors.
    /// - Parameter message: the message's id and its enqueue and drain times (``MonotonicClock``), so the frame that
    ///   first shows it can report message-to-commit latency.
    func messageArrived(_ message: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64), kind: ScreenKind) {
        // A blank screen shows no message, but its flash patch does.
        guard kind != .external(.blank) || flash != nil else { return }
        invalidate()
        report(
            latencyTracker.messageArrived(
                PendingMessage(id: message.id, enqueuedAt: message.enqueuedAt, drainedAt: message.drainedAt)))
        // Keep the oldest message waiting for a frame: a burst reports its worst latency, not its best.
        if pendingMessage == nil {
            pendingMessage = message
            arrivedBehindFrame = scheduler.awaitsFrameCallback || scheduler.awaitsCompositor
            frameReadyAt = nil
        }
    }

    private var pendingMessage: (id: UInt64, enqueuedAt: UInt64, drainedAt: UInt64)?
    /// Whether the pending message found this screen's previous frame still in flight (its frame callback or the
    /// compositor's sync not back yet), and when this screen became free to draw again: where the message's wait
    /// went, for the latency log line.
    private var arrivedBehindFrame = false
    private var frameReadyAt: UInt64?

    /// A message arrived that this screen's next frame shows.
    var waitsToShowMessage: Bool { pendingMessage != nil }

    /// Whether a frame may be drawn now: the compositor caught up, and the pacing says so unless a configure waits
    /// for its commit (answered at once, whatever the pacing).
    func mayDraw(answeringConfigure: Bool) -> Bool {
        guard scheduler.mayCommit else { return false }
        guard !answeringConfigure else { return true }
        guard scheduler.shouldRender(pacing) else { return false }
        if pacing == .deadline {
            let now = MonotonicClock.nanoseconds()
            let start = drawAt ?? predictor.drawStart(now: now)
            if start > now {
                drawAt = start
                return false
            }
        }
        return true
    }

    /// A frame is being drawn now. - Returns: when it started (``MonotonicClock``).
    func drawStarts() -> UInt64 {
        drawAt = nil
        return MonotonicClock.nanoseconds()
    }

    /// Whether the frame being drawn carries messages some frame still has to show.
    var carriesMessages: Bool { latencyTracker.waitingCount > 0 }

    /// Photodiode mode: the patch, flipped when this frame carries messages. - Returns: whether it does.
    func drawFlashPatch(on canvas: Canvas, geometry: SurfaceGeometry) -> Bool {
        let carriesMessages = carriesMessages
        guard let flash else { return carriesMessages }
        if carriesMessages { patchWhite.toggle() }
        let scale = Double(geometry.bufferWidth) / Double(max(geometry.logicalWidth, 1))
        let r = flash.rect(
            bufferWidth: Int(geometry.bufferWidth), bufferHeight: Int(geometry.bufferHeight), scale: scale)
        let white = RGBColor(red: 255, green: 255, blue: 255)
        let colour = patchWhite ? white : RGBColor(red: 0, green: 0, blue: 0)
        canvas.fill(x: r.x, y: r.y, width: r.width, height: r.height, color: colour)
        return carriesMessages
    }

    /// The frame just drawn was committed: drawing waits for the compositor's sync, the predictor learns how long
    /// drawing took, the messages it carries are followed to its presentation, and a message's wait is logged.
    /// - Parameter screenName: the screen's output name, for the log.
    func committed(
        on screenName: String, drawStarted: UInt64, carriesMessages: Bool, withFeedback: Bool, globals: WaylandGlobals
    ) {
        awaitCompositor(globals: globals)
        let committedAt = MonotonicClock.nanoseconds()
        lastCommittedAt = committedAt
        predictor.drew(committedAt - drawStarted)
        commitTimes[frameNumber] = committedAt
        commitTimes = commitTimes.filter { $0.key + 16 > frameNumber }
        if flash != nil && carriesMessages { patchByFrame[frameNumber] = patchWhite }
        report(
            latencyTracker.committed(
                frame: frameNumber, at: committedAt,
                presentationClock: MonotonicClock.nanoseconds(clock: globals.presentationClock),
                withFeedback: withFeedback))
        scheduler.didRender()
        if let message = pendingMessage {
            pendingMessage = nil
            let now = MonotonicClock.nanoseconds()
            // The drain → commit time split: waiting for the previous frame's callback (or sync), waiting for
            // the display thread (other screens drawn first, other work), and drawing this frame.
            let ready =
                arrivedBehindFrame
                ? min(max(frameReadyAt ?? drawStarted, message.drainedAt), drawStarted) : message.drainedAt
            logger.debug(
                "latency: message #\(message.id) on \(screenName) committed at \(now) ns, enqueue→commit \(Self.milliseconds(between: message.enqueuedAt, now)) ms, drain→commit \(Self.milliseconds(between: message.drainedAt, now)) ms, queued \(Self.milliseconds(between: message.enqueuedAt, message.drainedAt)) ms, behind frame \(Self.milliseconds(between: message.drainedAt, ready)) ms, behind thread \(Self.milliseconds(between: ready, drawStarted)) ms, drawn \(Self.milliseconds(between: drawStarted, now)) ms"
            )
        }
    }

    /// Sends a sync after the commit just made; drawing waits until it comes back. Sent after `eglSwapBuffers`, so
    /// its answer also means Mesa's own sync of that swap was answered and the buffers the compositor is done with
    /// were released (the answers come in order): the next swap finds what it waits for already read.
    private func awaitCompositor(globals: WaylandGlobals) {
        compositorSync?.cancel()
        let sentAt = MonotonicClock.nanoseconds()
        compositorSync = globals.requestSync { [unowned self] in
            compositorSync = nil
            scheduler.compositorCaughtUp()
            if !scheduler.awaitsFrameCallback { frameReadyAt = MonotonicClock.nanoseconds() }
            if MonotonicClock.nanoseconds() &- sentAt > Self.unresponsiveAfter { unshownWaitStartsNow() }
        }
        if compositorSync != nil { scheduler.awaitCompositor() }
    }

    /// Requests the frame callback and, if not too many are outstanding, presentation feedback for the next commit
    /// (frame ``frameNumber`` + 1, which this makes current). - Returns: whether feedback was requested.
    func requestFrameAndFeedback(window: ToplevelWindow, globals: WaylandGlobals) -> Bool {
        let committedAt = MonotonicClock.nanoseconds(clock: globals.presentationClock)
        let committedMonotonic = MonotonicClock.nanoseconds()
        frameNumber += 1
        let number = frameNumber
        let clock = PresentationClock(clockID: globals.presentationClock) { MonotonicClock.nanoseconds(clock: $0) }
        // A hidden surface gets no callbacks; under `immediate` and `deadline` pacing it still commits: keep the
        // newest few.
        while frameCallbacks.count >= Self.maximumOutstandingCallbacks, let oldest = frameCallbacks.keys.min() {
            frameCallbacks.removeValue(forKey: oldest)?.cancel()
        }
        frameCallbacks[number] = window.requestFrame { [unowned self] _ in
            frameCallbacks[number] = nil
            let now = MonotonicClock.nanoseconds()
            lastShownAt = now
            // The latest frame's callback is the one frame pacing waits for; only then is everything committed on
            // screen, and whatever changed since waits from now.
            if number == frameNumber {
                scheduler.frameDone()
                if !scheduler.awaitsCompositor { frameReadyAt = now }
                unshownSince = scheduler.isDirty ? now : nil
            }
            onShown(number)
            if !compositorSendsPresented {
                statistics.recordFrameDone(latencyNanoseconds: now - committedMonotonic)
            }
            report(latencyTracker.frameDone(frame: number, at: now))
        }
        var withFeedback = false
        if feedbacks.count < Self.maximumOutstandingFeedbacks {
            var created: PresentationFeedback?
            created = PresentationFeedback(presentation: globals.presentation, surface: window.surface) {
                [unowned self] outcome in
                if let created { feedbacks[ObjectIdentifier(created)] = nil }
                switch outcome {
                case .presented(let timing):
                    compositorSendsPresented = true
                    let nanoseconds = timing.timestampNanoseconds
                    statistics.recordPresented(
                        latencyNanoseconds: nanoseconds > committedAt ? nanoseconds - committedAt : 0)
                    latency.clock = PresentationClock.name(of: clock.clockID)
                    let presentedAt = clock.monotonic(fromPresentationClock: nanoseconds)
                    if let committed = commitTimes.removeValue(forKey: number) {
                        predictor.presented(
                            at: presentedAt, committedAt: committed,
                            refreshNanoseconds: UInt64(timing.refreshNanoseconds))
                    }
                    report(latencyTracker.presented(frame: number, presentedAt: presentedAt, timing: timing))
                case .discarded:
                    statistics.recordDiscarded()
                    let (discarded, redraw) = latencyTracker.discarded(frame: number)
                    report(discarded)
                    // Its messages lost their frame and no later one is committed yet: draw one.
                    if redraw { invalidate() }
                }
            }
            if let created {
                feedbacks[ObjectIdentifier(created)] = created
                withFeedback = true
            }
        }
        statistics.recordCommit(withFeedback: withFeedback && globals.presentation != nil)
        return withFeedback
    }

    private func report(_ report: FrameLatencyReport?) {
        guard var report else { return }
        if flash != nil {
            report.patchWhite = patchByFrame[report.frame]
            patchByFrame = patchByFrame.filter { $0.key > report.frame }
        }
        latency.record(report, missedVblanks: latencyTracker.vblanks.missed)
        onLatencyReport(report)
    }

    private func report(_ reports: [FrameLatencyReport]) {
        for each in reports { report(each) }
    }

    /// From `start` to `end` (``MonotonicClock`` ns), 0 if `end` is earlier: a message enqueued while the drain
    /// that takes it already runs is stamped after that drain's start.
    static func milliseconds(between start: UInt64, _ end: UInt64) -> String {
        milliseconds(end > start ? end - start : 0)
    }

    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let tenths = nanoseconds / 10_000
        return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100)"
    }

    /// The window goes: what the compositor was asked for is cancelled, and messages still waiting for a frame are
    /// reported lost.
    func tearDown() {
        report(latencyTracker.tornDown())
        for feedback in feedbacks.values { feedback.cancel() }
        feedbacks.removeAll()
        for callback in frameCallbacks.values { callback.cancel() }
        frameCallbacks.removeAll()
        compositorSync?.cancel()
        compositorSync = nil
        scheduler.compositorCaughtUp()
        drawAt = nil
        scheduler.reset()
        unshownSince = nil
    }
}
