import Media
import Messaging
import Outputs
import Product
import Screens
import Wayland

/// One media file as read for the screens that show it: being read, a decoded picture (still or animated), a playing
/// video, or failed. Owned by ``MediaScreens``; ``destroyFrames()`` before it is dropped (after the layers that
/// showed its frames are gone).
final class MediaAsset {
    /// What makes two screens show the same asset: the same file played the same way, from the same point of the
    /// clock. Fit and turn are each screen's own (its layer's viewport and transform), so they share the decoded
    /// pixels. The clock's start is part of it because a pipeline plays one timeline: screens whose items started at
    /// different times must each show their own point of the video, and screens whose items started together (one
    /// playlist on several screens) share one pipeline. A new turn of the same file is a new start, so its video
    /// starts again as the clock says rather than going on from where the last turn left it. Sound is part of it: a
    /// pipeline plays its sound or does not decode it.
    struct Key: Hashable {
        var path: String
        var loop: Bool
        var clockStart: Double?
        var audio: Bool

        init(_ item: MediaItem) {
            path = item.path
            loop = item.loop
            clockStart = item.clockStart
            audio = item.audio
        }
    }

    enum State {
        case reading
        case image(Picture)
        case video(Video)
        case failed(String)
    }

    let id: Int
    let key: Key
    var state = State.reading
    /// `media.show` requests waiting for the file to be read, with their reply tickets.
    var waiting: [(MediaRequest, OrderedReplies.Ticket?)] = []
    /// After a failure: how long until it is read again, and when (``MonotonicClock`` ns).
    var retryDelay = 0.0
    var retryAt: UInt64?
    /// While it is read: when it must be showable (``MonotonicClock`` ns), else it fails (a video whose pipeline never
    /// reaches its first frame, a decoder stuck on a file).
    var deadline: UInt64?
    /// Frames of a video that failed: screens keep showing the last one until the file is read again.
    var leftovers: [ShmFrame] = []
    /// When a screen last showed it (``MonotonicClock`` ns): the pictures kept between turns go least recent first.
    var lastShown: UInt64 = 0
    /// Its file changed on disk since it was read: it is not kept once no screen shows it, so its next turn reads the
    /// file again.
    var isStale = false

    /// The decoded pixels a picture holds (every frame of an animation); 0 for anything else.
    var pictureBytes: Int {
        guard case .image(let picture) = state else { return 0 }
        return Int(picture.image.width) * Int(picture.image.height) * 4 * picture.image.frames.count
    }

    init(id: Int, key: Key) {
        self.id = id
        self.key = key
    }

    var isReading: Bool {
        if case .reading = state { return true }
        if case .video(let video) = state { return video.facts == nil }
        return false
    }

    var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Read and decodable: a picture, or a video that started.
    var canShow: Bool { facts != nil }

    func isRetryDue(now: UInt64) -> Bool {
        guard case .failed = state, let retryAt else { return false }
        return retryAt <= now
    }

    /// What the request is answered with once it can be shown.
    var facts: (kind: MediaKind, width: Int, height: Int, decoder: String?)? {
        switch state {
        case .image(let picture): (.image, picture.image.sourceWidth, picture.image.sourceHeight, nil)
        case .video(let video): video.facts.map { (.video, $0.width, $0.height, $0.decoder) }
        case .reading, .failed: nil
        }
    }

    /// The frame to show now, nil while there is none.
    func currentFrame(shm: OpaquePointer) -> ShmFrame? {
        switch state {
        case .image(let picture): picture.current(shm: shm)
        case .video(let video): video.current
        case .reading, .failed: nil
        }
    }

    /// Every frame made for the compositor so far (each has a buffer per screen that showed it).
    var frames: [ShmFrame] {
        switch state {
        case .image(let picture): picture.frames.compactMap { $0 }
        case .video(let video): Array(video.slotFrames.values) + leftovers
        case .reading, .failed: leftovers
        }
    }

    func destroyFrames() {
        for frame in frames { frame.destroy() }
        if case .video(let video) = state { video.slotFrames.removeAll() }
        leftovers.removeAll()
    }

    var vitals: [String: JSONValue] {
        var vitals: [String: JSONValue] = [:]
        switch state {
        case .reading:
            vitals["state"] = .string("reading")
        case .image(let picture):
            vitals["state"] = .string("showing")
            vitals["decodedWidth"] = .integer(Int(picture.image.width))
            vitals["decodedHeight"] = .integer(Int(picture.image.height))
            vitals["frames"] = .integer(picture.image.frames.count)
        case .video(let video):
            vitals["state"] = .string(video.facts == nil ? "starting" : video.ended ? "ended" : "playing")
            vitals["decoder"] = .optional(video.facts?.decoder)
            vitals["sound"] = .optional(video.facts?.sound.description)
            let statistics = video.pipeline.statistics
            vitals["framesDecoded"] = .integer(statistics.decoded)
            vitals["framesDropped"] = .integer(statistics.dropped)
            vitals["loops"] = .integer(statistics.shownLoops)
            vitals["framesShown"] = .integer(video.shown)
        case .failed(let reason):
            vitals["state"] = .string("failed")
            vitals["error"] = .string(reason)
        }
        // `wl_buffer`s over its frames: one per frame per screen that showed it, fewer as screens go.
        vitals["buffers"] = .integer(frames.reduce(0) { $0 + $1.bufferCount })
        return vitals
    }

    /// A decoded image and the frames made of it for the compositor (one per animation frame, made when first shown).
    final class Picture {
        let image: DecodedImage
        var frames: [ShmFrame?]
        var index = 0
        /// When the next animation frame is due (``MonotonicClock`` ns); nil for a still image or a finished one.
        var nextFrameAt: UInt64?

        init(_ image: DecodedImage) {
            self.image = image
            frames = Array(repeating: nil, count: image.frames.count)
            if image.isAnimated { nextFrameAt = MonotonicClock.nanoseconds() + Self.nanoseconds(image.delays[0]) }
        }

        func current(shm: OpaquePointer) -> ShmFrame {
            if let frame = frames[index] { return frame }
            let frame = ShmFrame(shm: shm, pixels: image.frames[index])
            frames[index] = frame
            return frame
        }

        /// Moves to the next animation frame when it is due. - Returns: whether the frame changed.
        func advance(now: UInt64) -> Bool {
            guard let due = nextFrameAt, due <= now else { return false }
            let next = index + 1
            if next == image.frames.count && !image.loops {
                nextFrameAt = nil
                return false
            }
            index = next % image.frames.count
            // From the due time, not from now: a late wakeup does not slow the animation down.
            var following = due + Self.nanoseconds(image.delays[index])
            if following <= now { following = now + Self.nanoseconds(image.delays[index]) }
            nextFrameAt = following
            return true
        }

        /// At least 20 ms a frame, as browsers do for GIFs that say 0 or 10 ms.
        private static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(seconds, 0.02) * 1e9) }
    }

    /// A playing video: its pipeline, the frames made for the compositor of its frame pool's slots, and which of the
    /// pipeline's frames are shown or waiting for the compositor to let go.
    final class Video {
        let pipeline: VideoPipeline
        var facts: (width: Int, height: Int, decoder: String, sound: VideoSound)?
        var ended = false
        var slotFrames: [Int: ShmFrame] = [:]
        /// The frame shown now, and its pipeline frame.
        private(set) var current: ShmFrame?
        private var currentVideoFrame: VideoFrame?
        /// Frames shown before, each still held by the compositor on some screen.
        private var retiring: [VideoFrame] = []
        private(set) var shown = 0

        init(_ pipeline: VideoPipeline) { self.pipeline = pipeline }

        /// Makes `frame` the one shown (its slot's ``ShmFrame``, made on first use).
        func show(_ frame: VideoFrame, shm: OpaquePointer) {
            let shmFrame: ShmFrame
            if let existing = slotFrames[frame.slot], existing.memory === frame.pixels {
                shmFrame = existing
            } else {
                slotFrames[frame.slot]?.destroy()
                shmFrame = ShmFrame(shm: shm, pixels: frame.pixels)
                slotFrames[frame.slot] = shmFrame
            }
            if let previous = currentVideoFrame { retiring.append(previous) }
            currentVideoFrame = frame
            current = shmFrame
            shown += 1
        }

        /// Gives the pipeline back every frame no screen holds any more.
        func returnReleasedFrames() {
            retiring.removeAll { frame in
                guard slotFrames[frame.slot]?.isHeld != true else { return false }
                pipeline.release(frame)
                return true
            }
        }
    }
}
