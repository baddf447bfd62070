import CLinux
import Foundation
import Glibc
import Logging
import Media
import Messaging
import Synchronization
import SystemCalls

/// Reads media files off the display thread, which must never wait on a disk or a decoder: one thread takes jobs (a
/// file to read, a pipeline to stop, a capture to write) and starts each read on a thread of its own (``FileReads``),
/// which tells an image from a video by its first bytes, decodes an image whole or builds and starts a video's
/// pipeline, and posts what came of it. A playing video's own news (started, ended, failed, stalled) comes from its
/// pipeline's bus thread through the same post. Pipelines are stopped from here, each on a thread of its own too
/// (``PipelineStops``): a file whose read never returns holds up such a thread for good, never this one.
///
/// The display thread posts jobs and takes news under a lock held only to append or swap an array, never across
/// any work, and sleeps on ``newsFileDescriptor`` in its poll. Created with the media owner; ``stop()`` joins the
/// threads (a read under way for a moment at most) and drops what was not taken.
final class MediaReader: @unchecked Sendable {
    enum Job: @unchecked Sendable {
        /// Read the file at `path` (a video with its sound when `audio`); `clockStart`: when (seconds since 1970) the
        /// clock says a video started, so that its pipeline starts that far in (nil: from the beginning; an image
        /// ignores it); `deadline`: when the screens stop waiting for it (``MonotonicClock`` ns), from which on the
        /// read counts as hung (``FileReads``); `decodeSize`: the size to decode an image of this size at (what the
        /// screens need, ``MediaPlacement/decodeSize``).
        case read(
            id: Int, path: String, loop: Bool, audio: Bool, clockStart: Double?, deadline: UInt64,
            decodeSize: @Sendable (_ width: Int, _ height: Int) -> (width: Int, height: Int))
        /// Stop a video nobody shows any more; its memory goes with it.
        case stop(VideoPipeline)
        /// Measure the length of the video at `path`, which an item naming `source` plays (``VideoLength``).
        case measure(source: String, path: String)
        /// Write a screen's capture (XRGB8888, `width` × 4 bytes a row) as a PNG at `path`, or in memory without one.
        case writePNG(id: Int, pixels: [UInt8], width: Int, height: Int, path: String?)
    }

    enum News: @unchecked Sendable {
        case image(id: Int, DecodedImage)
        /// A video's pipeline, built and starting: ``VideoEvent/started`` (or an error) follows.
        case video(id: Int, VideoPipeline)
        case videoEvent(id: Int, VideoEvent)
        case failed(id: Int, MediaError)
        /// A video's length, or why it could not be measured.
        case length(source: String, path: String, Result<Double, MediaError>)
        /// A capture was written to its file (`png` nil) or encoded (`png`: its bytes), or why not (`failure`).
        case written(id: Int, png: [UInt8]?, failure: String?)
    }

    /// Readable when news is waiting (an eventfd; ``takeNews()`` resets it).
    var newsFileDescriptor: Int32 { news.wakeDescriptor }
    private let jobSignal: Int32
    private let jobs = Mutex<(queue: [Job], stopping: Bool)>(([], false))
    private let news: Mailbox<News>
    private let thread = LoopThread()
    private let stops: PipelineStops
    private let reads: FileReads
    private let limits: ImageLimits
    private let logger: Logger

    /// How far ahead of the wall clock a video with a clock plays, in seconds: a turn's first frame is then in memory
    /// before the render pass that makes the switch (a millisecond after it), so every screen switching then commits
    /// it in that one pass rather than each when its own frame comes (which can fall on either side of a refresh). Far
    /// under a frame: nobody sees it, and kiosks whose clocks agree all run the same amount ahead.
    static let aheadOfTheClock = 0.01

    /// How much lower than the display thread the reader's thread runs (and the pipelines' stops): decoding a picture
    /// or building a pipeline must never take the display's core from it.
    static let niceness: Int32 = 5

    /// The largest PNG a capture carries in its reply (base64 makes it 4/3 of this on the wire): a 4K screen of
    /// photographs fits; anything larger is written to a file instead.
    static let largestEncodedPNG = 24 << 20

    init(limits: ImageLimits = ImageLimits(), logger: Logger) throws(SystemCallError) {
        self.limits = limits
        self.logger = logger
        stops = PipelineStops(logger: logger)
        reads = FileReads(logger: logger)
        news = try Mailbox()
        // Blocking: the reader thread sleeps in read(2) until a job or the stop request.
        jobSignal = try systemCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC)) }
        do {
            try thread.start(name: "media-reader", niceness: Self.niceness) { [self] in run() }
        } catch {
            close(jobSignal)
            throw error
        }
    }

    deinit {
        stop()
        close(jobSignal)
    }

    /// Queues a file to read (display thread).
    func read(_ job: Job) {
        jobs.withLock { $0.queue.append(job) }
        Self.signal(jobSignal)
    }

    /// Everything posted since the last call, oldest first (display thread).
    func takeNews() -> [News] { news.take().items }

    /// Posts news from any thread: the reader's, or a pipeline's bus thread.
    func post(_ item: News) { news.post(item) }

    /// Ends the thread once the job under way is done and every pipeline's stop still queued has begun; reads not
    /// started are dropped. Then waits for the reads under way, and for the stops (each at most
    /// ``PipelineStops/hangsAfter``, then it is left to the exit, as a read whose file hangs is). Safe twice.
    func stop() {
        let stopped = thread.stop {
            jobs.withLock { $0.stopping = true }
            Self.signal(jobSignal)
        }
        guard stopped else { return }
        reads.finish(waitingAtMost: PipelineStops.hangsAfter)
        // A read that finished after the display stopped taking news left its pipeline there: stopped with the rest.
        let untaken = news.take().items.compactMap { item -> VideoPipeline? in
            if case .video(_, let pipeline) = item { return pipeline }
            return nil
        }
        for pipeline in untaken { stops.stop(pipeline) }
        stops.finish(waitingAtMost: PipelineStops.hangsAfter)
    }

    private func run() {
        while true {
            var value: UInt64 = 0
            _ = Glibc.read(jobSignal, &value, 8)
            while let job = nextJob() {
                guard let job else { return }
                perform(job)
            }
        }
    }

    /// The next job; nil when there is none; `.some(nil)` when stopping and no pipeline is left to stop (a pipeline
    /// is stopped even at exit: its threads and memory are GStreamer's until then).
    private func nextJob() -> Job?? {
        jobs.withLock { jobs in
            if jobs.stopping {
                jobs.queue.removeAll {
                    switch $0 {
                    case .read, .measure: true
                    case .stop, .writePNG: false
                    }
                }
                return .some(jobs.queue.isEmpty ? nil : jobs.queue.removeFirst())
            }
            // A measurement waits for every other job: a screen's read has a deadline, a length has none.
            guard let next = jobs.queue.firstIndex(where: { if case .measure = $0 { false } else { true } }) else {
                return jobs.queue.isEmpty ? nil : .some(jobs.queue.removeFirst())
            }
            return .some(jobs.queue.remove(at: next))
        }
    }

    private func perform(_ job: Job) {
        stops.reap()
        reads.reap()
        switch job {
        case .stop(let pipeline):
            stops.stop(pipeline)
        case .writePNG(let id, let pixels, let width, let height, let path?):
            post(
                .written(id: id, png: nil, failure: PNGFile.write(xrgb: pixels, width: width, height: height, to: path))
            )
        case .writePNG(let id, let pixels, let width, let height, nil):
            switch PNGFile.encode(xrgb: pixels, width: width, height: height, limit: Self.largestEncodedPNG) {
            case .success(let png): post(.written(id: id, png: png, failure: nil))
            case .failure(let failure): post(.written(id: id, png: nil, failure: failure.description))
            }
        case .measure(let source, let path):
            reads.waitForAPlace()
            // GStreamer's discoverer would wait for the stuck read too.
            if let hung = hung(path) { return post(.length(source: source, path: path, .failure(hung))) }
            // Nobody waits for a length with a deadline: it hangs when a screen's read would.
            let hangsAt = MonotonicClock.nanoseconds() &+ UInt64(MediaScreens.readTimeout * 1e9)
            reads.start(path: path, hangsAt: hangsAt) { [self] in
                do throws(MediaError) {
                    post(.length(source: source, path: path, .success(try VideoLength.measure(path: path))))
                } catch {
                    post(.length(source: source, path: path, .failure(error)))
                }
            }
        case .read(let id, let path, let loop, let audio, let clockStart, let deadline, let decodeSize):
            reads.waitForAPlace()
            // The screens stopped waiting for it while it was queued: they have refused it already.
            if MonotonicClock.nanoseconds() >= deadline { return }
            // Its last pipeline, or a read of it, is stuck in a read of it: so would this one be.
            if let hung = hung(path) { return post(.failed(id: id, hung)) }
            reads.start(path: path, hangsAt: deadline) { [self] in
                do throws(MediaError) {
                    switch try MediaProbe.kind(ofFileAt: path) {
                    case .image:
                        post(.image(id: id, try ImageDecoder.decode(path: path, sizedBy: decodeSize, limits: limits)))
                    case .video:
                        // Read when the pipeline has prerolled, on its bus thread: as late as possible, so that the
                        // time it took to open the file and build the decoder is not lost.
                        let offset = clockStart.map { start in
                            { @Sendable in Date().timeIntervalSince1970 - start + Self.aheadOfTheClock }
                        }
                        let pipeline = try VideoPipeline(path: path, loop: loop, audio: audio, startOffset: offset) {
                            [weak self] event in
                            self?.post(.videoEvent(id: id, event))
                        }
                        // Posted before it starts, so that its events follow it in the news.
                        post(.video(id: id, pipeline))
                        pipeline.start()
                    }
                } catch {
                    post(.failed(id: id, error))
                }
            }
        }
    }

    /// Why the file at `path` is not read now: a pipeline of it is stuck stopping, or a read of it hangs, and
    /// neither has returned. Nil when it may be read.
    private func hung(_ path: String) -> MediaError? {
        if stops.isStuck(path: path) { return Self.stuck(path) }
        if reads.isHung(path: path) { return FileReads.hung(path) }
        return nil
    }

    /// Why a file whose last pipeline is stuck in a read of it is not read again.
    private static func stuck(_ path: String) -> MediaError {
        .unreadable(path: path, reason: "a read of it has not returned for over \(PipelineStops.hangsAfter) s")
    }

    private static func signal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = Glibc.write(fd, &one, 8)
    }
}
