import Messaging
import Outputs
import Rendering
import Screens
import Wayland

/// How a ``ScreenSet``'s screens map to windows. Everything that differs between "a window per output" and "one
/// window across all outputs" lives behind this interface, so nothing else asks which one is in effect.
protocol WindowArrangement {
    /// Whether `screen` should have a window of its own.
    func hasOwnWindow(_ screen: Screen) -> Bool
    /// The arrangement to use after the outputs changed (a spanning window whose host went away moves to another
    /// screen; with no outputs left, windows are separate again).
    func adjusted(to screens: ScreenSet) -> any WindowArrangement
    /// The screen shown at surface-local (logical) point (`x`, `y`) of `window`'s surface, and the point in it.
    func target(in window: Screen, x: Double, y: Double, of screens: ScreenSet) -> (
        screen: Screen, x: Double, y: Double
    )?
    func drawingGeometry(of screen: Screen, in screens: ScreenSet) -> SurfaceGeometry?
    func hasShown(_ screen: Screen, in screens: ScreenSet) -> Bool
    /// Whether the controller and its mirrors can show one shared frame on their own surfaces (each screen has
    /// one), when the run's ``MirrorPath`` allows it.
    var canShareFrames: Bool { get }
    /// Draws and commits what needs it. `controller` is the registry name of the controller's output (whether it
    /// shows the controller UI or a page in its place): drawn first, and what mirrors show. `showsMessage`: whether
    /// a screen's next frame shows a message someone waits to see (drawn before the controller when it can be).
    /// `picture`: what a screen of that geometry would draw, when identical screens can show one frame of it.
    /// - Returns: how many windows were committed.
    func render(
        _ screens: ScreenSet, context: GraphicsContext, canvas: () throws -> Canvas, globals: WaylandGlobals,
        controller: UInt32?, kind: (Screen) -> ScreenKind, showsMessage: (Screen) -> Bool,
        picture: (Screen, SurfaceGeometry) -> SharedPicture?, draw: (Screen, Canvas, SurfaceGeometry) -> Void
    ) -> Int
}

/// One fullscreen window per output: what every compositor but cage does.
struct SeparateWindows: WindowArrangement {
    func hasOwnWindow(_ screen: Screen) -> Bool { true }

    func adjusted(to screens: ScreenSet) -> any WindowArrangement { self }

    func target(in window: Screen, x: Double, y: Double, of screens: ScreenSet) -> (
        screen: Screen, x: Double, y: Double
    )? { (window, x, y) }

    func drawingGeometry(of screen: Screen, in screens: ScreenSet) -> SurfaceGeometry? { screen.geometry }

    func hasShown(_ screen: Screen, in screens: ScreenSet) -> Bool { screen.hasCommitted }

    var canShareFrames: Bool { true }

    func render(
        _ screens: ScreenSet, context: GraphicsContext, canvas: () throws -> Canvas, globals: WaylandGlobals,
        controller: UInt32?, kind: (Screen) -> ScreenKind, showsMessage: (Screen) -> Bool,
        picture: (Screen, SurfaceGeometry) -> SharedPicture?, draw: (Screen, Canvas, SurfaceGeometry) -> Void
    ) -> Int {
        // A screen that has never shown anything goes first: when an output appears, every other screen also
        // redraws ("screen 2 of 3"), and the newcomer's first frame must not wait behind them. Then a screen with a
        // window of its own whose next frame shows a message: when a page's frame carrying a message is due
        // together with the controller's frame for the same message, the message does not wait for a whole
        // software frame of the controller. Then the controller, so that mirrors drawn after it in this pass show
        // this frame's controller. A screen showing an identical screen's frame goes right after its leader drew it,
        // or in its own place when the leader's frame is ready already.
        func isController(_ screen: Screen) -> Bool { screen.output.registryName == controller }
        let shared = screens.sharedFrames
        let hasController = screens.ordered.contains(where: isController)
        // With shared frames, identical external screens show one frame: see ``PictureSharing``.
        let sharing = PictureSharing(screens.ordered, now: MonotonicClock.nanoseconds()) { screen in
            guard shared != nil, !isController(screen), let geometry = screen.geometry else { return nil }
            return picture(screen, geometry)
        }
        /// How each screen's frame reaches its surface, and the pool it goes through: with shared frames, the
        /// controller draws into one and its mirrors show it (a mirror with no controller to show draws its messages,
        /// like any screen), and an external screen draws into its own or shows an identical screen's.
        func route(_ screen: Screen) -> (FrameRoute, SharedFramePool?) {
            switch (kind(screen), shared, sharing.part(of: screen)) {
            case (_, .some(let shared), _) where isController(screen): (.sharedFrame, shared.pool)
            case (.external(.mirror), .some(let shared), _) where hasController: (.sharedMirror, shared.pool)
            case (.external(.mirror), .none, _) where hasController: (.mirrorByCopy, nil)
            case (_, .some, .leads?) where screen.leaderPool != nil: (.sharedFrame, screen.leaderPool)
            case (_, .some, .follows(let leader, _)?) where leader.leaderPool != nil:
                (.sharedIdentical, leader.leaderPool)
            default: (.window, nil)
            }
        }
        // A leader's pool is made when it starts leading and dropped when it stops (the screens still showing its
        // frames keep it until they show others). Without shared memory for one, the group draws screen by screen.
        // A new leader draws at once even when nothing it shows changed: its followers wait for its frame.
        for screen in screens.ordered {
            if case .leads(let shown)? = sharing.part(of: screen) {
                if screen.leaderPool == nil, let shm = globals.shm {
                    screen.leaderPool = try? SharedFramePool(shm: shm)
                }
                if screen.leaderPicture != shown { screen.invalidate() }
            } else {
                screen.leaderPool = nil
                screen.leaderPicture = nil
            }
        }
        func rank(_ screen: Screen) -> Int {
            guard screen.hasCommitted else { return isController(screen) ? 0 : 1 }
            let drawsOwnFrame = [.window, .sharedFrame].contains(route(screen).0)
            if !isController(screen) && drawsOwnFrame && showsMessage(screen) { return 2 }
            return isController(screen) ? 3 : 4
        }
        var drawn = 0
        var visited = Set<ObjectIdentifier>()
        func render(_ screen: Screen) {
            guard visited.insert(ObjectIdentifier(screen)).inserted else { return }
            let (route, pool) = route(screen)
            let frames = pool.flatMap { pool in shared.map { SharedFrames(pool: pool, offscreen: $0.offscreen) } }
            let rendered = screen.renderIfNeeded(
                context: context, canvas: canvas, globals: globals, route: route, shared: frames,
                draw: { draw(screen, $0, $1) })
            if rendered { drawn += 1 }
            // A leader's new frame goes to every screen showing it at once, before anything else is drawn.
            if rendered, route == .sharedFrame, case .leads(let shown)? = sharing.part(of: screen) {
                screen.leaderPicture = shown
                for follower in sharing.followers(of: screen) { render(follower) }
            }
        }
        for screen in screens.ordered.sorted(by: { rank($0) < rank($1) }) {
            // Not ready: it is shown when its leader draws, in this pass or a later one.
            if case .follows(let leader, let shown)? = sharing.part(of: screen), leader.leaderPool != nil,
                !PictureSharing.isReady(leader, for: shown)
            {
                continue
            }
            render(screen)
        }
        return drawn
    }
}

/// One window across every output (cage: "one window at a time, spanning all outputs, requested output
/// ignored"): the host screen's window draws each screen's content in that screen's region, at its logical
/// position, the controller's first.
struct SpanningWindow: WindowArrangement {
    /// The registry name of the output whose screen owns the window.
    let host: UInt32

    func hasOwnWindow(_ screen: Screen) -> Bool { screen.output.registryName == host }

    func adjusted(to screens: ScreenSet) -> any WindowArrangement {
        if screens.screens[host] != nil { return self }
        // The hosting window's output went away: the first remaining screen's window hosts them all now.
        guard let first = screens.ordered.first else { return SeparateWindows() }
        return SpanningWindow(host: first.output.registryName)
    }

    func target(in window: Screen, x: Double, y: Double, of screens: ScreenSet) -> (
        screen: Screen, x: Double, y: Double
    )? {
        let outputs = screens.ordered.map(\.output)
        let bounds = LayoutBounds(outputs)
        let gx = Int32(x) + bounds.x
        let gy = Int32(y) + bounds.y
        for screen in screens.ordered {
            let info = screen.output
            let size = info.logicalSize
            guard gx >= info.logicalX, gx < info.logicalX + size.width, gy >= info.logicalY,
                gy < info.logicalY + size.height
            else { continue }
            return (screen, x - Double(info.logicalX - bounds.x), y - Double(info.logicalY - bounds.y))
        }
        return nil
    }

    func drawingGeometry(of screen: Screen, in screens: ScreenSet) -> SurfaceGeometry? {
        region(of: screen, in: screens)?.geometry
    }

    func hasShown(_ screen: Screen, in screens: ScreenSet) -> Bool { screens.screens[host]?.hasCommitted == true }

    /// One surface for every screen: mirrors are regions of it, drawn from the texture copy.
    var canShareFrames: Bool { false }

    func render(
        _ screens: ScreenSet, context: GraphicsContext, canvas: () throws -> Canvas, globals: WaylandGlobals,
        controller: UInt32?, kind: (Screen) -> ScreenKind, showsMessage: (Screen) -> Bool,
        picture: (Screen, SurfaceGeometry) -> SharedPicture?, draw: (Screen, Canvas, SurfaceGeometry) -> Void
    ) -> Int {
        guard let hostScreen = screens.screens[host] else { return 0 }
        if screens.ordered.contains(where: { $0 !== hostScreen && $0.timeline.needsDrawing }) {
            hostScreen.invalidate()
        }
        let rendered = hostScreen.renderIfNeeded(
            context: context, canvas: canvas, globals: globals,
            draw: { canvas, geometry in
                let ordered = screens.ordered.sorted {
                    ($0.output.registryName == controller ? 0 : 1) < ($1.output.registryName == controller ? 0 : 1)
                }
                for screen in ordered {
                    guard let region = region(of: screen, in: screens) else { continue }
                    canvas.region = (region.x, region.y, geometry.bufferHeight)
                    draw(screen, canvas, region.geometry)
                    if screen !== hostScreen { screen.timeline.drawnElsewhere() }
                }
                canvas.region = nil
            })
        return rendered ? 1 : 0
    }

    /// The region of `screen` inside the hosting window, in the host's buffer pixels.
    private func region(of screen: Screen, in screens: ScreenSet) -> (x: Int32, y: Int32, geometry: SurfaceGeometry)? {
        guard let hostGeometry = screens.screens[host]?.geometry else { return nil }
        let bounds = LayoutBounds(screens.ordered.map(\.output))
        let scaleX = Float(hostGeometry.bufferWidth) / Float(max(hostGeometry.logicalWidth, 1))
        let scaleY = Float(hostGeometry.bufferHeight) / Float(max(hostGeometry.logicalHeight, 1))
        let size = screen.output.logicalSize
        let geometry = SurfaceGeometry(
            logicalWidth: size.width, logicalHeight: size.height,
            bufferWidth: Int32((Float(size.width) * scaleX).rounded()),
            bufferHeight: Int32((Float(size.height) * scaleY).rounded()), bufferScale: hostGeometry.bufferScale,
            usesViewport: false)
        return (
            Int32((Float(screen.output.logicalX - bounds.x) * scaleX).rounded()),
            Int32((Float(screen.output.logicalY - bounds.y) * scaleY).rounded()), geometry
        )
    }
}
