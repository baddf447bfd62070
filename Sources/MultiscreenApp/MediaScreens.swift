import Foundation
import Logging
import Media
import Messaging
import Outputs
import Product
import Screens
import SystemCalls
import Wayland

/// The images and videos on screens. Each file is read once (``MediaReader``, off the display thread) into one
/// ``MediaAsset``, shown on every screen that shows it through that screen's own ``MediaLayer``: the compositor
/// composites the decoded pixels as they are, and nothing is drawn per screen or per frame. A video is one pipeline
/// however many screens show it; each of its frames backs one `wl_buffer` per screen.
///
/// Who owns what: the assets (their frames' memory, their pipelines) and the layers are made and destroyed here, on
/// the display thread, except a pipeline's stop, which the reader's thread does (it joins GStreamer's threads).
/// ``sync(_:kind:covered:)`` runs before every render pass and makes the layers match what the screens show;
/// ``tearDownAll()`` at exit, before the windows go.
final class MediaScreens {
    /// A screen's layer and what it shows.
    private struct Shown {
        var layer: MediaLayer
        var key: MediaAsset.Key
        var item: MediaItem
        /// When the compositor first showed a frame of this file on the screen (seconds since 1970): what `status`
        /// reports as `shownAt`, so that screens switched together can be checked to have switched together.
        var firstShownAt: Double?
    }

    private let globals: WaylandGlobals
    private let reader: MediaReader
    private let timer: OneShotTimer
    /// The files of the pictures kept between turns, whose change on disk makes them read again.
    private let fileChanges: FileChangeWatch
    /// The display thread's loop: the reader's news, the timer and each video's frames are watched there, by this
    /// owner of them, from when each is made to when it goes.
    private unowned let loop: EventLoop
    private let logger: Logger
    private var assets: [MediaAsset.Key: MediaAsset] = [:]
    private var layers: [UInt32: Shown] = [:]
    private var nextID = 1
    /// A `media.show` read to its end: the caller answers it through the product (``ProductController/settle``).
    var onSettled: (MediaRequest, MediaReading, OrderedReplies.Ticket?) -> Void = { _, _, _ in }
    /// Something the subscribers are told that no request asked: a video ended, a shown file failed.
    var onEvent: (Event) -> Void = { _ in }
    /// A video's length was measured (``measureLength(of:at:)``): its source, the file measured, the result.
    var onMeasured: (String, String, Result<Double, MediaError>) -> Void = { _, _, _ in }
    /// Captures the reader is writing, by id: what to do once each is written.
    private var writes: [Int: ([UInt8]?, String?) -> Void] = [:]
    /// The compositor showed a frame of the file at this path on the screen of this output (a picture when it came, a
    /// video's frames as they come): what the proof of play counts.
    var onShown: (UInt32, String) -> Void = { _, _ in }
    /// The file each screen showing an image or a video wants, as of the last ``sync(_:kind:covered:)`` (what `status`
    /// reports, whether its layer exists yet or not).
    private var wantedKeys: [UInt32: MediaAsset.Key] = [:]

    /// How long after a failure a file a screen still shows (by its config rule, or restored) is read again: the file
    /// may be copied in later, a stalled stream may play again. Doubles to ``longestRetry``.
    static let firstRetry = 2.0
    static let longestRetry = 300.0
    /// How long a file may take to read before it fails: a video's first frame, an image's decode. Under the CLI's
    /// default reply timeout (5 s), so that `media show` on a file whose pipeline neither plays nor fails (an MP4 cut
    /// short can leave GStreamer waiting) is answered with a refusal rather than no reply.
    static let readTimeout = 4.0
    /// How much decoded picture memory the playlists' pictures may keep between their turns (each read once, then
    /// shown again without reading); beyond it, the least recently shown go, and are read again at their turn.
    static let keptPictureBytes = 256 << 20
    /// How long before its turn a playlist's next video is read: time for its pipeline to build and preroll, with a wide
    /// margin (read at its turn, a 320×240 H.264 clip showed its first frame 50–87 ms late here; larger files and a busy
    /// machine take longer), so that it plays its first frame on the switch rather than when it is ready, in step with
    /// every screen switching then; no earlier, as a waiting pipeline holds its decoder and a few frames.
    static let videoLead = 1.5

    init(globals: WaylandGlobals, loop: EventLoop, logger: Logger) throws {
        self.globals = globals
        self.loop = loop
        self.logger = logger
        reader = try MediaReader(logger: logger)
        timer = try OneShotTimer(on: loop)
        fileChanges = try FileChangeWatch(on: loop)
        timer.fired = { [unowned self] in timerFired() }
        fileChanges.changed = { [unowned self] path in fileChanged(path) }
        loop.watch(reader.newsFileDescriptor) { [unowned self] in takeNews() }
    }

    // MARK: - Requests

    /// Reads the file a `media.show` names for `screen` (one of `screens`), then settles it: at once when it was read
    /// already for another screen, else when the reader is done.
    func read(_ request: MediaRequest, ticket: OrderedReplies.Ticket?, screens: [Screen]) {
        guard globals.subcompositor != nil, globals.viewporter != nil, globals.shm != nil else {
            onSettled(
                request,
                .failed(
                    "the compositor offers no wl_subcompositor, wp_viewporter or wl_shm: images and videos cannot be shown"
                ),
                ticket)
            return
        }
        let key = MediaAsset.Key(request.item)
        if let asset = assets[key], asset.canShow || asset.isReading {
            asset.waiting.append((request, ticket))
            settleWaiting(asset)
            return
        }
        let asset = startReading(key, for: [(screens.first { $0.output.displayName == request.screen }, request.item)])
        asset.waiting.append((request, ticket))
    }

    /// The layer showing `screen`'s image or video, if it has one.
    func layer(of screen: Screen) -> MediaLayer? { layers[screen.output.registryName]?.layer }

    /// Measures the length of the video at `path` (an item naming `source` plays it) on the reader's thread; the result
    /// comes back through ``onMeasured``.
    func measureLength(of source: String, at path: String) {
        reader.read(.measure(source: source, path: path))
    }

    // MARK: - Screens → layers

    /// Makes the layers match what the screens show: a layer for each screen showing an image or a video that is
    /// ready, the file read for any that is not, and nothing left of what no screen shows any more. A screen
    /// `covered` by something the window draws over its content (`screen.identify`) has its layer hidden while its
    /// media keeps playing, so it comes back where it would have been.
    ///
    /// `ahead` gives what each screen reads ahead (``ScreenModel/readAhead(of:)``: a `media.show` waiting for its
    /// start, its playlist's next turns): the first item
    /// is read before its turn (a video from ``videoLead`` before it, its pipeline then waiting for the switch to play
    /// its first frame), and every picture read is kept decoded (within ``keptPictureBytes``), so a switch to a
    /// picture is ready at once and a playlist of pictures reads each file once, not at every turn.
    func sync(
        _ screens: [Screen], kind: (Screen) -> ScreenKind, ahead: (Screen) -> [MediaItem], covered: (Screen) -> Bool
    ) {
        screenOf = Dictionary(uniqueKeysWithValues: screens.map { ($0.output.registryName, $0) })
        coveredScreens = Set(screens.filter(covered).map(\.output.registryName))
        let now = MonotonicClock.nanoseconds()
        var wanted: [UInt32: (screen: Screen, item: MediaItem)] = [:]
        for screen in screens {
            if case .media(let shown) = kind(screen) { wanted[screen.output.registryName] = (screen, shown.item) }
        }
        // Sound plays on one screen at a time. Requests for it elsewhere are refused (``ScreenModel/soundScreen``), but
        // config rules may ask for it on several screens: the first by name (natural order) keeps it.
        let withSound = wanted.values.filter(\.item.audio).map(\.screen.output)
        for output in withSound.sorted(by: { $0.displayName.naturalOrder($1.displayName) }).dropFirst() {
            wanted[output.registryName]!.item.audio = false
        }
        let previouslyWanted = wantedKeys
        wantedKeys = wanted.mapValues { MediaAsset.Key($0.item) }
        for name in layers.keys where wanted[name] == nil { removeLayer(name) }
        // A file read ahead that failed is told when its turn comes, as one read then would be.
        for (name, key) in wantedKeys where previouslyWanted[name] != key {
            if case .failed(let reason)? = assets[key]?.state {
                onEvent(.mediaError(screen: screenName(name), path: key.path, error: reason))
            }
        }
        for (name, (screen, item)) in wanted {
            let key = MediaAsset.Key(item)
            var asset = assets[key]
            if asset == nil || asset!.isRetryDue(now: now) {
                let sharing = wanted.values.filter { MediaAsset.Key($0.item) == key }.map {
                    ($0.screen as Screen?, $0.item)
                }
                asset = startReading(key, for: sharing)
            }
            // A screen that switches files (a playlist's next item) keeps its picture until the next one is ready: never
            // a blank screen between two items.
            guard let asset, let shm = globals.shm, let frame = asset.currentFrame(shm: shm) else { continue }
            if let previous = layers[name], previous.key != key {
                if let id = previous.layer.surfaceID, let old = assets[previous.key] {
                    for frame in old.frames { frame.retire(id) }
                }
                layers[name]?.key = key
                layers[name]?.firstShownAt = nil
            }
            if layers[name] == nil, let window = screen.window, let layer = MediaLayer(globals: globals, window: window)
            {
                layers[name] = Shown(layer: layer, key: key, item: item)
            }
            guard let shown = layers[name] else { continue }
            layers[name]?.item = item
            if coveredScreens.contains(name) {
                shown.layer.hide()
                continue
            }
            // A new or moved subsurface shows with its window's next commit: this render pass draws the window.
            if shown.layer.show(
                frame, placement: placement(of: frame, item: item, on: screen), rotation: item.rotation,
                whenShown: { [unowned self] in frameShown(name, key: key, path: item.path) })
            {
                screen.invalidate()
            }
        }
        for shown in layers.values { assets[shown.key]?.lastShown = now }
        readAheadAndKeepPictures(screens.map { ($0, ahead($0)) }, wanted: Set(wantedKeys.values))
        armTimer()
    }

    /// Reads each screen's next playlist item ahead of its turn (a video no earlier than ``videoLead`` before it: the
    /// timer wakes for that), keeps the playlists' pictures read so far (the least recently shown go beyond
    /// ``keptPictureBytes``, and any whose file changed), and destroys every other asset no screen shows or waits for.
    private func readAheadAndKeepPictures(_ ahead: [(Screen, [MediaItem])], wanted: Set<MediaAsset.Key>) {
        let now = MonotonicClock.nanoseconds()
        let wallNow = Date().timeIntervalSince1970
        readAheadDue = nil
        for (screen, items) in ahead {
            for next in Self.readBeforeTheirTurn(items) {
                // One that failed is read again after its delay, as a shown one is.
                guard assets[MediaAsset.Key(next)].map({ $0.isRetryDue(now: now) }) ?? true else { continue }
                if let start = next.clockStart, start - wallNow > Self.videoLead {
                    // Woken again within a day at the latest: the clock may have been set meanwhile.
                    let due = now + UInt64(min(start - wallNow - Self.videoLead, 86_400) * 1e9)
                    readAheadDue = min(readAheadDue ?? due, due)
                    continue
                }
                startReading(MediaAsset.Key(next), for: [(screen, next)])
            }
        }
        let readAhead = Set(ahead.flatMap { $0.1.map(MediaAsset.Key.init) })
        let nextItems = Set(ahead.flatMap { Self.readBeforeTheirTurn($0.1).map(MediaAsset.Key.init) })
        var budget = Self.keptPictureBytes
        let idle = assets.values.filter { asset in
            asset.waiting.isEmpty && !wanted.contains(asset.key) && !layers.values.contains { $0.key == asset.key }
        }
        // The next items first (read for their turn: never dropped for the budget, or they would be read again at
        // every pass), then the most recently shown.
        let order = idle.sorted { a, b in
            let (aNext, bNext) = (nextItems.contains(a.key), nextItems.contains(b.key))
            return aNext != bNext ? aNext : a.lastShown > b.lastShown
        }
        for asset in order {
            let keeps: Bool
            switch asset.state {
            case _ where !readAhead.contains(asset.key) || asset.isStale: keeps = false
            // Being read ahead, or failed and waiting for its retry (which the delay, kept here, paces).
            case .reading, .failed: keeps = true
            case .image: keeps = nextItems.contains(asset.key) || asset.pictureBytes <= budget
            // A video waiting for its turn; one no screen shows and none plays next is stopped.
            case .video: keeps = nextItems.contains(asset.key)
            }
            if keeps {
                budget -= asset.pictureBytes
            } else {
                destroy(asset)
            }
        }
        fileChanges.watch(Set(assets.values.filter { $0.pictureBytes > 0 }.map(\.key.path)))
    }

    /// What of a screen's read-ahead list is read before its turn: the first item, and when that is a video (the only
    /// items with a clock start), the first picture too, which may come next but one.
    private static func readBeforeTheirTurn(_ items: [MediaItem]) -> [MediaItem] {
        guard let first = items.first else { return [] }
        return first.clockStart != nil ? Array(items.prefix(2)) : [first]
    }

    /// A file changed on disk: the pictures read from it are read again at their next turn (one on screen now stays
    /// until then).
    private func fileChanged(_ path: String) {
        for asset in assets.values where asset.key.path == path && asset.pictureBytes > 0 { asset.isStale = true }
    }

    /// Where `frame` goes on `screen`'s output.
    private func placement(of frame: ShmFrame, item: MediaItem, on screen: Screen) -> MediaPlacement {
        let size = screen.output.logicalSize
        let pixels = Self.pixelSize(of: screen)
        return MediaPlacement(
            width: frame.width, height: frame.height, rotation: item.rotation, fit: item.fit, screenWidth: size.width,
            screenHeight: size.height, scale: Float(pixels.width) / Float(max(size.width, 1)))
    }

    /// The output's size in pixels, as its screen draws it.
    private static func pixelSize(of screen: Screen?) -> (width: Int, height: Int) {
        guard let screen else { return (1920, 1080) }
        if let geometry = screen.geometry { return (Int(geometry.bufferWidth), Int(geometry.bufferHeight)) }
        let output = screen.output
        let (w, h) = output.isRotated ? (output.modeHeight, output.modeWidth) : (output.modeWidth, output.modeHeight)
        return (Int(max(w, 1)), Int(max(h, 1)))
    }

    private func removeLayer(_ name: UInt32) {
        guard let shown = layers.removeValue(forKey: name) else { return }
        // Every frame of the file kept a buffer for this surface: they all go (each once the compositor let go).
        if let id = shown.layer.surfaceID, let asset = assets[shown.key] {
            for frame in asset.frames { frame.retire(id) }
        }
        shown.layer.destroy()
    }

    // MARK: - Reading

    @discardableResult
    private func startReading(_ key: MediaAsset.Key, for screens: [(Screen?, MediaItem)]) -> MediaAsset {
        let previous = assets[key]
        if let previous { destroy(previous) }
        let asset = MediaAsset(id: nextID, key: key)
        asset.retryDelay = previous?.retryDelay ?? 0
        let deadline = MonotonicClock.nanoseconds() + UInt64(Self.readTimeout * 1e9)
        asset.deadline = deadline
        nextID += 1
        assets[key] = asset
        // What each screen needs of the picture, from its size, fit and turn: the largest decides.
        let needs = screens.map { screen, item in (Self.pixelSize(of: screen), item.fit, item.rotation) }
        reader.read(
            .read(
                id: asset.id, path: key.path, loop: key.loop, audio: key.audio, clockStart: key.clockStart,
                deadline: deadline
            ) {
                width, height in
                needs.reduce((width: 1, height: 1)) { largest, need in
                    let size = MediaPlacement.decodeSize(
                        width: width, height: height, rotation: need.2, fit: need.1, pixelWidth: need.0.width,
                        pixelHeight: need.0.height)
                    return (max(largest.width, size.width), max(largest.height, size.height))
                }
            })
        return asset
    }

    /// Takes the reader's news: decoded images, started pipelines, a video's events.
    private func takeNews() {
        for news in reader.takeNews() {
            switch news {
            case .image(let id, let image):
                // An image nobody waits for any more: its memory goes with the last reference. One that came after
                // the screens stopped waiting (its asset failed, not read again yet) is shown all the same.
                guard let asset = asset(id), asset.isReading || asset.hasFailed else { continue }
                logger.debug("picture \(image.width)x\(image.height) decoded: \(asset.key.path.logSafe)")
                asset.state = .image(MediaAsset.Picture(image))
                asset.retryDelay = 0
                settleWaiting(asset)
                invalidateShowing(asset)
            case .video(let id, let pipeline):
                guard let asset = reading(id) else {
                    reader.read(.stop(pipeline))
                    continue
                }
                asset.state = .video(MediaAsset.Video(pipeline))
                loop.watch(pipeline.frameReadyFileDescriptor) { [unowned self] in newFrame(of: asset) }
            case .videoEvent(let id, let event):
                guard let asset = asset(id), case .video(let video) = asset.state else { continue }
                handle(event, of: video, in: asset)
            case .failed(let id, let error):
                guard let asset = reading(id) else { continue }
                fail(asset, reason: error.description)
            case .written(let id, let png, let failure):
                writes.removeValue(forKey: id)?(png, failure)
            case .length(let source, let path, let result):
                onMeasured(source, path, result)
            }
        }
        armTimer()
    }

    private func asset(_ id: Int) -> MediaAsset? { assets.values.first { $0.id == id } }

    /// The asset whose read posted `id`'s news, while that read is what it waits for. A pipeline or a failure that
    /// comes after its asset failed (the deadline passed: the file hung, or took too long) or went finds nothing: its
    /// asset reads the file again at its retry, with a deadline of its own.
    private func reading(_ id: Int) -> MediaAsset? {
        guard let asset = asset(id), case .reading = asset.state else { return nil }
        return asset
    }

    private func handle(_ event: VideoEvent, of video: MediaAsset.Video, in asset: MediaAsset) {
        switch event {
        case .started(let width, let height, let decoder, let sound, let position):
            video.facts = (width, height, decoder, sound)
            asset.retryDelay = 0
            let from = position > 0 ? " from \(Self.seconds(position)) s (the clock's point)" : ""
            let audio = sound == .muted ? "" : ", sound: \(sound.description)"
            logger.info("video \(width)x\(height) playing with \(decoder)\(audio)\(from): \(asset.key.path.logSafe)")
            settleWaiting(asset)
        case .startRefused(let seconds, let reason):
            // Once per pipeline: it plays from the beginning rather than not at all.
            let point = "not at \(Self.seconds(seconds)) s as the clock says (\(reason))"
            logger.warning("video started from the beginning, \(point): \(asset.key.path.logSafe)")
        case .ended:
            video.ended = true
            for (name, shown) in layers where shown.key == asset.key {
                onEvent(.mediaEnded(screen: screenName(name), path: asset.key.path))
            }
        case .error(let error):
            fail(asset, reason: error.description)
        case .stalled(let seconds):
            fail(asset, reason: MediaError.stalled(seconds: seconds).description)
        }
    }

    /// Seconds to the millisecond, for the log.
    private static func seconds(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// The file cannot be shown (now): waiting requests are refused; screens that show it keep their last picture
    /// until it is read again, after a delay that doubles with each failure.
    private func fail(_ asset: MediaAsset, reason: String) {
        let wasShown = asset.canShow
        if case .video(let video) = asset.state {
            loop.unwatch(video.pipeline.frameReadyFileDescriptor)
            reader.read(.stop(video.pipeline))
            asset.leftovers += video.slotFrames.values
        }
        asset.deadline = nil
        asset.state = .failed(reason)
        for (request, ticket) in asset.waiting { onSettled(request, .failed(reason), ticket) }
        asset.waiting.removeAll()
        if wasShown || layers.values.contains(where: { $0.key == asset.key }) {
            logger.warning("media failed, read again later: \(reason.logSafe)")
            for (name, shown) in layers where shown.key == asset.key {
                onEvent(.mediaError(screen: screenName(name), path: asset.key.path, error: reason))
            }
        }
        asset.retryDelay = min(max(asset.retryDelay * 2, Self.firstRetry), Self.longestRetry)
        asset.retryAt = MonotonicClock.nanoseconds() + UInt64(asset.retryDelay * 1e9)
    }

    private func settleWaiting(_ asset: MediaAsset) {
        guard let facts = asset.facts else { return }
        asset.deadline = nil
        for (request, ticket) in asset.waiting {
            onSettled(
                request,
                .readable(kind: facts.kind, width: facts.width, height: facts.height, decoder: facts.decoder), ticket)
        }
        asset.waiting.removeAll()
    }

    // MARK: - Frames

    /// A video's newest frame: shown on every screen that shows the video, and the frames the compositor let go of
    /// go back to the pipeline.
    private func newFrame(of asset: MediaAsset) {
        guard case .video(let video) = asset.state, let shm = globals.shm else { return }
        video.pipeline.acknowledge()
        guard let frame = video.pipeline.takeFrame() else { return }
        video.show(frame, shm: shm)
        // A screen that switched to the video before its first frame came has no layer on it yet: the next render
        // pass makes it.
        for (name, key) in wantedKeys where key == asset.key && layers[name]?.key != key {
            if let screen = screenOf[name], screen.window != nil { screen.invalidate() }
        }
        for (name, shown) in layers where shown.key == asset.key && !coveredScreens.contains(name) {
            guard let screen = screenOf[name], let current = video.current else { continue }
            if shown.layer.show(
                current, placement: placement(of: current, item: shown.item, on: screen), rotation: shown.item.rotation,
                whenShown: { [unowned self, key = shown.key, path = shown.item.path] in
                    frameShown(name, key: key, path: path)
                })
            {
                screen.invalidate()
            }
        }
        video.returnReleasedFrames()
    }

    /// The compositor showed a frame of `key`'s file on the screen of output `name`.
    private func frameShown(_ name: UInt32, key: MediaAsset.Key, path: String) {
        if layers[name]?.key == key, layers[name]?.firstShownAt == nil {
            layers[name]?.firstShownAt = Date().timeIntervalSince1970
        }
        onShown(name, path)
    }

    /// When (``MonotonicClock`` ns) the earliest next video not read yet is within ``videoLead`` of its turn.
    private var readAheadDue: UInt64?

    /// The screens by registry name, as of the last ``sync(_:kind:covered:)``.
    private var screenOf: [UInt32: Screen] = [:]
    /// Screens whose layer is hidden under what the window draws over it, as of the last sync.
    private var coveredScreens: Set<UInt32> = []

    private func screenName(_ name: UInt32) -> String { screenOf[name]?.output.displayName ?? "output-\(name)" }

    /// The timer fired: an animated image's next frame is due, a failed file's retry (which the render pass after this
    /// wakeup starts, in ``sync(_:kind:covered:)``, if a screen still shows the file), or a next video's reading.
    private func timerFired() {
        let now = MonotonicClock.nanoseconds()
        // The render pass after this wakeup reads it (and works out the next one).
        if let due = readAheadDue, due <= now { readAheadDue = nil }
        for asset in assets.values {
            if case .image(let picture) = asset.state, picture.advance(now: now) { invalidateShowing(asset) }
            if let deadline = asset.deadline, deadline <= now, asset.isReading {
                fail(asset, reason: "\(asset.key.path.logSafe): not readable within \(Int(Self.readTimeout)) s")
            }
        }
        armTimer()
    }

    private func armTimer() {
        let dues = assets.values.flatMap { asset -> [UInt64] in
            var dues = [asset.deadline].compactMap { $0 }
            if case .image(let picture) = asset.state, let next = picture.nextFrameAt { dues.append(next) }
            if case .failed = asset.state, let retry = asset.retryAt { dues.append(retry) }
            return dues
        }
        timer.arm(atMonotonic: (dues + [readAheadDue].compactMap { $0 }).min())
    }

    /// Redraws the layers showing `asset` at the next render pass.
    private func invalidateShowing(_ asset: MediaAsset) {
        for (name, shown) in layers where shown.key == asset.key { screenOf[name]?.invalidate() }
    }

    // MARK: - Lifetimes

    private func destroy(_ asset: MediaAsset) {
        for (name, shown) in layers where shown.key == asset.key { removeLayer(name) }
        if case .video(let video) = asset.state {
            loop.unwatch(video.pipeline.frameReadyFileDescriptor)
            reader.read(.stop(video.pipeline))
        }
        asset.destroyFrames()
        assets[asset.key] = nil
    }

    // MARK: - Captures

    /// Draws the picture or the video frame `screen`'s layer shows into `pixels` (the screen's own drawing read back,
    /// `width`×`height`), where and as the compositor shows it.
    func composeLayer(of screen: Screen, into pixels: inout [UInt8], width: Int, height: Int) {
        let name = screen.output.registryName
        guard !coveredScreens.contains(name), let shown = layers[name], let frame = shown.layer.shown,
            let memory = frame.memory
        else { return }
        let placement = placement(of: frame, item: shown.item, on: screen)
        let scale = Float(width) / Float(max(screen.output.logicalSize.width, 1))
        let d = placement.destination
        PictureComposite.draw(
            .init(
                pixels: UnsafeRawPointer(memory.pixels), width: Int(frame.width), height: Int(frame.height),
                stride: Int(frame.stride)),
            rotation: shown.item.rotation, source: placement.source, into: &pixels, targetWidth: width,
            targetHeight: height,
            destination: Rect(x: d.x * scale, y: d.y * scale, width: d.width * scale, height: d.height * scale))
    }

    /// Writes a capture's pixels as a PNG at `path` (without one: encodes it in memory) on the reader's thread; `done`
    /// runs on the display thread with the PNG's bytes when it was not written to a file, or why it could not be.
    func writePNG(
        _ pixels: [UInt8], width: Int, height: Int, to path: String?,
        done: @escaping (_ png: [UInt8]?, _ failure: String?) -> Void
    ) {
        let id = nextID
        nextID += 1
        writes[id] = done
        reader.read(.writePNG(id: id, pixels: pixels, width: width, height: height, path: path))
    }

    /// What `status` says of each screen's image or video: the file it wants (which it shows once it is read), and
    /// when the compositor first showed it there.
    var vitals: [UInt32: [String: JSONValue]] {
        var vitals: [UInt32: [String: JSONValue]] = [:]
        for (name, key) in wantedKeys {
            guard var asset = assets[key]?.vitals else { continue }
            if let shown = layers[name], shown.key == key, let at = shown.firstShownAt {
                asset["shownAt"] = .number(at)
            }
            vitals[name] = asset
        }
        return vitals
    }

    /// Destroys every layer, then every asset (pipelines stopped by the reader before it ends). At exit, while the
    /// windows still exist.
    func tearDownAll() {
        for name in Array(layers.keys) { removeLayer(name) }
        for asset in Array(assets.values) { destroy(asset) }
        loop.unwatch(reader.newsFileDescriptor)
        reader.stop()
    }
}
