import CGStreamer
import Synchronization
import SystemCalls

/// The loop of a pipeline's bus thread ("media-bus"): turns GStreamer's messages into ``VideoEvent``s and drives
/// the seeks: the one to where the clock says the video starts, and the loop's. Its state is the thread's own; it
/// holds its own reference to the pipeline, so that it never touches the ``VideoPipeline`` object (whose `deinit`
/// joins this thread).
final class VideoBusLoop: @unchecked Sendable {
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sink: UnsafeMutablePointer<GstElement>
    private let receiver: FrameReceiver
    private let path: String
    private let loops: Bool
    private let audio: Bool
    private let stallSeconds: Double
    private let startOffset: (@Sendable () -> Double)?
    private let onEvent: @Sendable (VideoEvent) -> Void
    /// ``VideoPipeline/start()`` was called (set by the caller's thread).
    let startRequested = Atomic<Bool>(false)

    private var prerollSeekDone = false
    /// Where the video starts, in seconds (0 unless a seek to the clock's point was made), and when
    /// (``MonotonicClock`` ns) that point is due, as the clock says: it plays with that as its base time, so the
    /// time the seek itself took is made up and a start still to come is waited for. Nil without a clock: at once.
    private var startPosition = 0.0
    private var startDue: UInt64?
    /// A pipeline with sound whose start is still to come waits prerolled until just before it (``MonotonicClock``
    /// ns, ``audioRestartLead`` ahead), when its audio output is started over and the pipeline sought back to its
    /// point (a preroll of a few frames), and then plays on the clock: a PulseAudio stream's timeline runs from its
    /// sink's preroll, not from when the pipeline plays, so a sink prerolled ahead would play its sound as late as it
    /// waited, whatever the clock and base time.
    private var audioRestartDue: UInt64?
    private var audioRestarted = false
    /// How long before its start a waiting pipeline's sound is started over: time for the preroll after it (about
    /// 10 ms with a software H.264 decoder), so that its first frame still comes on time, in step with the screens
    /// switched with it; the sound is late by what is left of the lead.
    static let audioRestartLead: UInt64 = 25_000_000
    /// ``VideoEvent/started(width:height:decoder:sound:position:)`` was reported.
    private var started = false
    /// The prerolled pipeline was told to play (once: a later preroll, after a loop's flushing seek, plays by itself).
    private var playRequested = false
    /// The base time set by hand for a start on the clock was handed back to the pipeline once it played.
    private var baseTimeHandedBack = false
    private var finished = false
    private var stallReported = false
    private var missingPlugins: [String] = []

    init(
        pipeline: UnsafeMutablePointer<GstElement>, sink: UnsafeMutablePointer<GstElement>, receiver: FrameReceiver,
        path: String, loops: Bool, audio: Bool, stallSeconds: Double, startOffset: (@Sendable () -> Double)?,
        onEvent: @escaping @Sendable (VideoEvent) -> Void
    ) {
        gst_object_ref(pipeline)
        gst_object_ref(sink)
        self.pipeline = pipeline
        self.sink = sink
        self.receiver = receiver
        self.path = path
        self.loops = loops
        self.audio = audio
        self.stallSeconds = stallSeconds
        self.startOffset = startOffset
        self.onEvent = onEvent
    }

    deinit {
        gst_object_unref(sink)
        gst_object_unref(pipeline)
    }

    /// Pops messages until the wakeup ``VideoPipeline/stop()`` posts, checking for a stall between them.
    func run() {
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(bus) }
        let wanted = [
            GST_MESSAGE_ERROR, GST_MESSAGE_EOS, GST_MESSAGE_SEGMENT_DONE, GST_MESSAGE_ASYNC_DONE,
            GST_MESSAGE_STATE_CHANGED, GST_MESSAGE_ELEMENT, GST_MESSAGE_APPLICATION,
        ].reduce(0) { $0 | $1.rawValue }
        let pollNanoseconds: UInt64 = 200_000_000
        while true {
            let now = MonotonicClock.nanoseconds()
            let timeout = audioRestartDue.map { min(pollNanoseconds, $0 &- min($0, now)) } ?? pollNanoseconds
            if let message = gst_bus_timed_pop_filtered(bus, GstClockTime(timeout), GstMessageType(rawValue: wanted)) {
                defer { gst_message_unref(message) }
                if cgst_message_is_wakeup(message) != 0 { return }
                handle(message)
            }
            if let due = audioRestartDue, due <= MonotonicClock.nanoseconds() {
                audioRestartDue = nil
                restartAudio()
            }
            checkStall()
        }
    }

    private func handle(_ message: UnsafeMutablePointer<GstMessage>) {
        switch cgst_message_type(message) {
        case GST_MESSAGE_ELEMENT:
            if gst_is_missing_plugin_message(message) != 0,
                let description = gst_missing_plugin_message_get_description(message)
            {
                missingPlugins.append(String(cString: description))
                g_free(description)
            }
        case GST_MESSAGE_ERROR: failed(message)
        case GST_MESSAGE_EOS:
            if loops && !finished {
                // Segment seeks end in SEGMENT_DONE, not EOS: this stream could not seek by segment. Start over.
                receiver.shownLoops.add(1, ordering: .relaxed)
                _ = cgst_seek_to_start(pipeline, 1)
            } else if !finished {
                finished = true
                onEvent(.ended)
            }
        case GST_MESSAGE_SEGMENT_DONE:
            // The demuxer has pushed the whole file; its last frames are still queued downstream. Queue the start
            // again without a flush: they play out, then the first frame follows on the same running time.
            receiver.shownLoops.add(1, ordering: .relaxed)
            _ = cgst_seek_to_start(pipeline, 0)
        case GST_MESSAGE_ASYNC_DONE:
            // Prerolled in PAUSED (looping, or told where to start): the first seek (flushing) goes to where the
            // clock says and, looping, makes the segment end in SEGMENT_DONE; the preroll after that seek is the
            // second ASYNC_DONE, and then the pipeline plays.
            guard loops || startOffset != nil, !finished, cgst_message_is_from(message, pipeline) != 0 else { break }
            if !prerollSeekDone {
                prerollSeekDone = true
                if seekBeforePlaying() { break }
            }
            guard !playRequested else { break }
            if let startDue, !audioRestarted, cgst_has_audio_branch(pipeline) != 0,
                startDue > MonotonicClock.nanoseconds() + Self.audioRestartLead
            {
                audioRestartDue = startDue - Self.audioRestartLead
                // Ready to play, as a pipeline without sound waiting for its start is: answered now, not at the start.
                announceStart()
                break
            }
            playRequested = true
            if let startDue {
                // The clock moved on while the pipeline prerolled and sought: its first frame goes out when the clock
                // says, at once when that has passed (the frames it passed too: late, not dropped), on time after.
                // Pipelines given the same point on the clock (videos read ahead of one switch) play in step.
                cgst_play_at(pipeline, gint64(Int64(bitPattern: startDue &- MonotonicClock.nanoseconds())))
            } else {
                gst_element_set_state(pipeline, GST_STATE_PLAYING)
            }
        case GST_MESSAGE_STATE_CHANGED:
            guard cgst_message_is_from(message, pipeline) != 0, !finished else { break }
            var old = GST_STATE_NULL
            var new = GST_STATE_NULL
            var pending = GST_STATE_NULL
            gst_message_parse_state_changed(message, &old, &new, &pending)
            guard new == GST_STATE_PLAYING else { break }
            if startDue != nil && !baseTimeHandedBack {
                baseTimeHandedBack = true
                cgst_own_base_time(pipeline)
            }
            announceStart()
        default: break
        }
    }

    /// Reports ``VideoEvent/started(width:height:decoder:sound:position:)`` once: when the pipeline plays, or, waiting
    /// prerolled for its start, when it is ready. From then on a missing frame is a stall, counted from the start when
    /// it is still to come.
    private func announceStart() {
        guard !started else { return }
        started = true
        if let startDue {
            receiver.markWaiting(from: startDue)
        } else {
            receiver.markWaiting()
        }
        var width: Int32 = 0
        var height: Int32 = 0
        _ = cgst_sink_size(sink, &width, &height)
        onEvent(
            .started(
                width: Int(width), height: Int(height), decoder: elementName("Decoder", "Video") ?? "unknown",
                sound: sound, position: startPosition))
    }

    /// The factory name of the first element of the pipeline whose class names both words, nil for none.
    private func elementName(_ first: String, _ second: String) -> String? {
        guard let name = cgst_element_of_class(pipeline, first, second) else { return nil }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// What became of the sound, once the pipeline prerolled (its audio branch, if any, was added before that).
    private var sound: VideoSound {
        guard audio else { return .muted }
        guard cgst_has_audio_branch(pipeline) != 0 else { return .noStream }
        return elementName("Sink", "Audio").map { .playing(sink: $0) } ?? .noOutput
    }

    /// Just before the start of a pipeline with sound that waited for it: its audio output started over and the
    /// pipeline sought back to its point, whose preroll's ASYNC_DONE plays it on the clock. A seek the stream refuses
    /// plays it as it is.
    private func restartAudio() {
        guard !finished, let startDue else { return }
        audioRestarted = true
        cgst_restart_audio_output(pipeline)
        if cgst_seek_to(pipeline, gint64(startPosition * 1e9), loops ? 1 : 0) == 0 {
            // Without the flush the restarted output may never preroll: then no frame comes, and the stall check
            // restarts the pipeline with backoff.
            playRequested = true
            cgst_play_at(pipeline, gint64(Int64(bitPattern: startDue &- MonotonicClock.nanoseconds())))
        }
    }

    /// The first seek, on the prerolled pipeline: accurate, to where the clock says when it was given a clock and the
    /// point is past the beginning; else, looping, to the beginning (a segment seek, for SEGMENT_DONE at the end). With
    /// a clock it places ``startDue``. A seek the stream refuses is reported and the video plays from the beginning,
    /// at once. - Returns: whether a seek is under way (its preroll's ASYNC_DONE follows).
    private func seekBeforePlaying() -> Bool {
        if let startOffset {
            let readAt = MonotonicClock.nanoseconds()
            let offset = startOffset()
            let nanoseconds = cgst_duration(pipeline)
            let duration = nanoseconds > 0 ? Double(nanoseconds) / 1e9 : nil
            let start = VideoStart(offset: offset, duration: duration, loops: loops)
            if let late = start.late { startDue = UInt64(max(Double(readAt) - late * 1e9, 0)) }
            switch start {
            case .fromBeginning: break
            case .at(let seconds):
                if cgst_seek_to(pipeline, gint64(seconds * 1e9), loops ? 1 : 0) != 0 {
                    startPosition = seconds
                    return true
                }
                // From the beginning, at once, rather than not at all.
                startDue = nil
                onEvent(.startRefused(seconds: seconds, reason: "the stream refused the seek"))
            case .unknownDuration:
                onEvent(.startRefused(seconds: offset, reason: "its duration is unknown"))
            }
        }
        return loops && cgst_seek_to_start(pipeline, 1) != 0
    }

    private func failed(_ message: UnsafeMutablePointer<GstMessage>) {
        var text: UnsafeMutablePointer<gchar>?
        var source: UnsafeMutablePointer<gchar>?
        var unsupported: gboolean = 0
        var resource: gboolean = 0
        cgst_parse_error(message, &text, &source, &unsupported, &resource)
        let reason = text.map { String(cString: $0) } ?? "unknown error"
        let element = source.map { String(cString: $0) }
        g_free(text)
        g_free(source)
        guard !finished else { return }
        finished = true
        audioRestartDue = nil
        let error: MediaError
        if !missingPlugins.isEmpty {
            error = .unsupported(
                path: path, reason: "missing GStreamer plugin: " + missingPlugins.joined(separator: ", "))
        } else if unsupported != 0 {
            error = .unsupported(path: path, reason: reason)
        } else if resource != 0 {
            error = .unreadable(path: path, reason: reason)
        } else {
            error = .corrupt(path: path, reason: element.map { "\($0): \(reason)" } ?? reason)
        }
        onEvent(.error(error))
    }

    /// A stall: asked to play, not finished, and no frame for `stallSeconds` (counted from the start request or the
    /// last frame). Reported once until frames come again.
    private func checkStall() {
        guard startRequested.load(ordering: .relaxed), !finished else { return }
        let since = receiver.lastFrame.load(ordering: .relaxed)
        let now = MonotonicClock.nanoseconds()
        let seconds = now > since ? Double(now - since) / 1e9 : 0
        if seconds >= stallSeconds {
            if !stallReported {
                stallReported = true
                onEvent(.stalled(seconds: seconds))
            }
        } else {
            stallReported = false
        }
    }
}
