import CGStreamer
import Glibc
import Synchronization
import SystemCalls

/// One video file playing, decoded once by one GStreamer pipeline for every screen that shows it:
/// `filesrc ! decodebin ! videoconvert ! video/x-raw,format=BGRx ! appsink`.
///
/// decodebin picks whatever decoder is installed, hardware ones (VA-API, V4L2) first by their rank. Audio is not
/// decoded (muted) unless asked for: then the file's first audio stream plays through `autoaudiosink`, on the same
/// clock as the frames. The appsink runs in sync with the pipeline clock, so frames arrive on GStreamer's streaming
/// thread at their presentation time; each is copied once into a ``FramePool`` slot and the display thread is woken
/// through ``frameReadyFileDescriptor``. The display thread only ever calls ``acknowledge()``, ``takeFrame()`` and
/// ``release(_:)``, which neither lock nor wait. The bus is read on a thread of its own ("media-bus"), which
/// reports ``VideoEvent``s, queues the loop's segment seeks and, for a video that starts where the wall clock says,
/// seeks there and plays on the clock's time.
public final class VideoPipeline: @unchecked Sendable {
    public let path: String
    public let loops: Bool
    /// Prerolled in PAUSED before it plays, so that the bus thread can seek first: a looping video, or one told where
    /// to start.
    private let prerolls: Bool
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sink: UnsafeMutablePointer<GstElement>
    private let receiver: FrameReceiver
    private let busLoop: VideoBusLoop
    private let busThread = LoopThread()
    /// Serialises ``start()`` and ``stop()`` (never taken on the display thread's path).
    private let lifecycle = Mutex<(started: Bool, stopped: Bool)>((false, false))

    /// Builds the pipeline (nothing plays until ``start()``) and starts its bus thread.
    /// - Parameters:
    ///   - loop: Play forever, seamlessly: segment seeks, no flush between loops.
    ///   - audio: Play the file's sound too (what came of it: the ``VideoSound`` of
    ///     ``VideoEvent/started(width:height:decoder:sound:position:)``); muted otherwise.
    ///   - stallSeconds: How long without a frame, once started, is a stall.
    ///   - startOffset: How far into the video the wall clock says it is now, in seconds (negative: how long until it
    ///     begins), asked once on the bus thread when the pipeline has prerolled and is about to play (nil: from the
    ///     beginning, at once). It is placed by ``VideoStart`` (wrapped around the video's length when it loops; no
    ///     seek within its first ``VideoStart/smallestSeek``); the seek is accurate, and the pipeline plays with the
    ///     clock's time for its starting point as its base time: the time the preroll and seek took is made up, a
    ///     beginning still to come is waited for, and pipelines given one clock play in step.
    ///   - onEvent: Called on the bus thread.
    /// - Throws: the file's own checks (``MediaError/notFound(path:)``, …), or
    ///   ``MediaError/unsupported(path:reason:)`` when GStreamer or one of the pipeline's elements is missing.
    public init(
        path: String, loop: Bool, audio: Bool = false, stallSeconds: Double = 5,
        startOffset: (@Sendable () -> Double)? = nil,
        onEvent: @escaping @Sendable (VideoEvent) -> Void
    ) throws(MediaError) {
        try MediaFile.check(path)
        if let failure = GStreamerRuntime.failure {
            throw .unsupported(path: path, reason: "GStreamer could not start: \(failure)")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = cgst_make_video_pipeline(path, audio ? 1 : 0, &error) else {
            let reason = error?.pointee.message.map { String(cString: $0) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw .unsupported(path: path, reason: "GStreamer cannot build the pipeline: \(reason)")
        }
        let receiver: FrameReceiver
        do {
            receiver = try FrameReceiver()
        } catch {
            gst_object_unref(pipeline)
            throw .unsupported(path: path, reason: "no eventfd for the frames: \(error)")
        }
        let sink = cgst_configure_sink(
            pipeline, FrameReceiver.newSample, Unmanaged.passUnretained(receiver).toOpaque())!
        self.path = path
        self.loops = loop
        prerolls = loop || startOffset != nil
        self.pipeline = pipeline
        self.sink = sink
        self.receiver = receiver
        busLoop = VideoBusLoop(
            pipeline: pipeline, sink: sink, receiver: receiver, path: path, loops: loop, audio: audio,
            stallSeconds: stallSeconds,
            startOffset: startOffset, onEvent: onEvent)
        do {
            let loop = busLoop
            try busThread.start(name: "media-bus") { loop.run() }
        } catch {
            gst_object_unref(sink)
            gst_object_unref(pipeline)
            throw .unsupported(path: path, reason: "no thread for the pipeline's bus: \(error)")
        }
    }

    deinit {
        stop()
        gst_object_unref(sink)
        gst_object_unref(pipeline)
    }

    /// Written (an eventfd count) when a new frame is ready; the display thread polls it, then calls
    /// ``acknowledge()`` and ``takeFrame()``. Open until this object is gone.
    public var frameReadyFileDescriptor: Int32 { receiver.readyDescriptor }

    /// Resets ``frameReadyFileDescriptor``'s count. Never blocks.
    public func acknowledge() {
        var count: UInt64 = 0
        _ = read(receiver.readyDescriptor, &count, 8)
    }

    /// Starts playing: to PLAYING at once, or, looping or told where to start, to PAUSED first so that the bus thread
    /// can make the first (flushing) seek on the prerolled pipeline and then play. Once; nothing after ``stop()``.
    public func start() {
        lifecycle.withLock { state in
            guard !state.started && !state.stopped else { return }
            state.started = true
            receiver.markWaiting()
            busLoop.startRequested.store(true, ordering: .relaxed)
            gst_element_set_state(pipeline, prerolls ? GST_STATE_PAUSED : GST_STATE_PLAYING)
        }
    }

    /// The newest frame decoded and not taken yet, or nil. Lock-free; the caller owns it until ``release(_:)``.
    public func takeFrame() -> VideoFrame? { receiver.pool.take() }

    /// Gives a taken frame back (the compositor released every buffer over it). Lock-free; a second release of the
    /// same frame is ignored.
    public func release(_ frame: VideoFrame) { receiver.pool.release(slot: frame.slot) }

    /// Frames copied into the pool, frames dropped (no free slot, or superseded before the display took them), and
    /// loops completed.
    public var statistics: (decoded: Int, dropped: Int, shownLoops: Int) {
        (
            receiver.pool.decoded.load(ordering: .relaxed), receiver.pool.dropped.load(ordering: .relaxed),
            receiver.shownLoops.load(ordering: .relaxed)
        )
    }

    /// Stops for good: the bus thread woken and joined (no event after this returns), the pipeline to NULL (its
    /// threads and decoder gone), the pool's memory returned (a frame the display still holds goes when released).
    /// Safe twice; `deinit` calls it. Not from the bus thread (that is, not from `onEvent`).
    public func stop() {
        lifecycle.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            busThread.stop { cgst_post_wakeup(pipeline) }
            gst_element_set_state(pipeline, GST_STATE_NULL)
            receiver.pool.retireAll()
        }
    }
}
