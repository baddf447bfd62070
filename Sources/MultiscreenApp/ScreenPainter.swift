import Messaging
import Outputs
import Product
import Rendering
import Screens

/// Draws one screen's content by what it shows: the controller UI, or an external screen's messages, mirror, card
/// or black. Made for one render pass from the state it reads; it changes nothing but the mirror texture.
struct ScreenPainter {
    let product: ProductController
    let screens: ScreenSet
    let graphics: Graphics
    /// The bus, whose counters the controller's status bar shows: read only when the controller is drawn (summing
    /// them takes the bus's lock, which the loop should not pay on every wakeup).
    let bus: MessageBus
    let applied: Int
    /// `CLOCK_MONOTONIC` ns of this render pass: the end of each screen's "last minute".
    var now: UInt64 = 0
    /// The web pages, whose newest frames web screens draw.
    let web: WebScreens

    func draw(_ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry) {
        drawContent(screen, on: canvas, geometry: geometry)
        if let identity = product.identity(of: screen.output.registryName) {
            IdentityScene.draw(identity, on: canvas, geometry: geometry, look: look(screen))
        }
    }

    /// The picture ``draw(_:on:geometry:)`` would draw on `screen`, when another screen could show that very frame
    /// (``SharedPicture``); nil when the frame is the screen's own. Mirrors ``drawContent(_:on:geometry:)``'s cases.
    func picture(of screen: Screen, geometry: SurfaceGeometry) -> SharedPicture? {
        let name = screen.output.displayName
        let theme = product.model.roles.config.theme
        guard !theme.showsInfo, !theme.showsName, product.identity(of: screen.output.registryName) == nil else {
            return nil
        }
        func messages() -> SharedPicture.Content { .messages(product.model.log.messages(for: name).map(\.id)) }
        let content: SharedPicture.Content
        switch product.kind(of: screen.output.registryName) {
        case .external(.messages):
            guard product.remoteOffer == nil || !product.showsRemoteOffer(.external(.messages), onScreenNamed: name)
            else { return nil }
            content = messages()
        case .external(.card):
            content = product.model.cards.card(onScreen: name).map { .card($0.text) } ?? messages()
        case .external(.blank): content = .blank
        case .external(.web), .external(.image), .external(.video), .external(.playlist): content = messages()
        case .slide(.text(let words)): content = .slide(words)
        case .slide(.card(let words)): content = .card(words)
        case .controller, .external(.mirror), .media, .web: return nil
        }
        let background = content == .blank ? SceneStyle.black : look(screen).background
        return SharedPicture(content: content, geometry: geometry, background: background)
    }

    /// What the screen shows, by its kind.
    private func drawContent(_ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry) {
        switch product.kind(of: screen.output.registryName) {
        case .controller:
            drawController(screen, on: canvas, geometry: geometry)
            showInMirrors(canvas)
        case .external(.mirror):
            // The texture holds the controller's last frame: shown only while there is a controller to mirror.
            if let target = graphics.mirror, product.model.assignment.controller != nil {
                ExternalScene.drawMirror(on: canvas, geometry: geometry, target: target)
            } else {
                drawMessages(screen, on: canvas, geometry: geometry)
            }
        case .external(.card):
            if let card = product.model.cards.card(onScreen: screen.output.displayName) {
                ExternalScene.drawCard(
                    on: canvas, geometry: geometry, output: screen.output, look: look(screen), card: card)
            } else {
                drawMessages(screen, on: canvas, geometry: geometry)
            }
        case .external(.blank):
            ExternalScene.drawBlank(on: canvas, geometry: geometry)
        case .external(.web), .external(.image), .external(.video), .external(.playlist):
            // `web`, `image` or `video` with nothing to show (none opened, none configured): the messages, as `card`
            // without a card.
            drawMessages(screen, on: canvas, geometry: geometry)
        case .media:
            // The picture is the compositor's to draw, on a subsurface above (``MediaScreens``): this is what shows
            // around it, the theme's background, black without one.
            let background = product.model.roles.config.theme.background ?? SceneStyle.black
            canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: background)
        case .slide(.text(let words)):
            ExternalScene.drawSlide(
                on: canvas, geometry: geometry, output: screen.output, look: look(screen), text: words)
        case .slide(.card(let words)):
            ExternalScene.drawCard(
                on: canvas, geometry: geometry, output: screen.output, look: look(screen),
                card: Card(id: 0, text: words, screen: nil))
        case .web(let url):
            drawPage(screen, url: url, on: canvas, geometry: geometry)
            // A page in place of the controller UI is what mirrors of the controller show.
            if screen.output.registryName == product.model.assignment.controller { showInMirrors(canvas) }
        case .external(.messages):
            guard let offer = product.remoteOffer,
                product.showsRemoteOffer(.external(.messages), onScreenNamed: screen.output.displayName)
            else {
                drawMessages(screen, on: canvas, geometry: geometry)
                return
            }
            let code = offer.locked ? nil : graphics.qrCodes.code(for: offer.link)
            let frame = ExternalScene.remoteOfferFrame(
                geometry: geometry, look: look(screen), offer: offer, code: code,
                corner: product.remoteOfferPlacement.corner)
            drawMessages(screen, on: canvas, geometry: geometry, reserving: frame)
            if let frame {
                ExternalScene.drawRemoteOffer(
                    on: canvas, geometry: geometry, look: look(screen), offer: offer, code: code, frame: frame)
            }
        }
    }

    /// Hands the controller's frame just drawn on `canvas` to the mirrors and marks them for drawing.
    private func showInMirrors(_ canvas: Canvas) {
        let mirrors = screens.ordered.filter { product.kind(of: $0.output.registryName) == .external(.mirror) }
        guard !mirrors.isEmpty else { return }
        // Copied once, sampled by every mirror drawn after the controller in this pass (with shared frames the
        // mirrors show this very frame: nothing to copy).
        if !screens.mirrorsShareFrames {
            let target = graphics.mirror ?? MirrorTexture()
            graphics.mirror = target
            canvas.capture(into: target)
        }
        for mirror in mirrors { mirror.invalidate() }
    }

    /// A web screen: the page's newest frame, or a card saying why there is none (loading, failed, crashed).
    private func drawPage(_ screen: Screen, url: String, on canvas: Canvas, geometry: SurfaceGeometry) {
        let frame = web.frame(of: screen.output.registryName)
        let note: String?
        switch frame?.state {
        case .failed(let reason)?: note = "Cannot show \(url)\n\(reason)"
        case .crashed(let reason, let retry)?:
            note = "The page stopped: \(reason).\nLoading \(url) again in \(Int(retry.rounded(.up))) s"
        case .unresponsive(let seconds)?:
            note = "The page is not responding.\n\(url) is loaded again in \(Int(seconds)) s unless it recovers"
        case nil where frame == nil: note = "Cannot show \(url)\nthe web engine is not available (see the log)"
        default: note = nil
        }
        if let note {
            ExternalScene.drawCard(
                on: canvas, geometry: geometry, output: screen.output, look: look(screen),
                card: Card(id: 0, text: note, screen: nil))
        } else if let texture = frame?.texture {
            canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: SceneStyle.black)
            canvas.drawWebFrame(
                texture,
                in: Rect(x: 0, y: 0, width: Float(geometry.bufferWidth), height: Float(geometry.bufferHeight)))
        } else {
            // Loading: the page's first frame is on its way.
            canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: SceneStyle.card)
        }
    }

    private func drawMessages(
        _ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry, reserving reserved: Rect? = nil
    ) {
        ExternalScene.drawMessages(
            on: canvas, geometry: geometry, output: screen.output, look: look(screen),
            messages: product.model.log.messages(for: screen.output.displayName), reserving: reserved)
    }

    /// The config's theme for an external screen.
    private func look(_ screen: Screen) -> ExternalScene.Look {
        ExternalScene.Look(theme: product.model.roles.config.theme, screenBackground: screen.background)
    }

    private func drawController(_ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry) {
        let rows = screens.ordered.map(row)
        var panel = product.panel
        panel.clampFocus(rows: rows.count)
        let layout = product.controllerLayout(width: Float(geometry.bufferWidth), height: Float(geometry.bufferHeight))
        let content = ControllerScene.Content(
            title: screen.summary.title, rows: rows, panel: panel, log: product.model.log.newestFirst,
            waitingCards: product.model.cards.waiting, status: statusLine, background: screen.background)
        ControllerScene.draw(on: canvas, layout: layout, content: content)
    }

    /// The controller's status bar: what the staff at the screen want to know; with `info = true` in `[theme]`, for
    /// installers, also the message bus's counters (the same as in `status`).
    private var statusLine: String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        let waiting = product.model.cards.waiting.count
        var parts = [
            count(screens.ordered.count, "screen"), count(product.model.log.count, "message"),
        ]
        if waiting > 0 { parts.append("\(count(waiting, "card")) waiting") }
        if product.model.roles.config.theme.showsInfo {
            let counters = bus.statistics
            parts.append(
                "bus: applied \(applied) · depth max \(counters.maxDepth) · rejected full \(counters.rejectedFull)"
                    + " · wakeups \(bus.wakeupsSent)")
        }
        return parts.joined(separator: " · ")
    }

    /// A row of the controller's screens list.
    private func row(_ screen: Screen) -> ControllerScene.Row {
        let info = screen.output
        let kind = product.kind(of: info.registryName)
        let role: String
        switch kind {
        case .controller: role = "controller"
        case .external(.card) where product.model.cards.card(onScreen: info.displayName) == nil:
            // `card` with no card open shows the messages: say what the screen shows.
            role = "external · messages (no card open)"
        case .external(let mode): role = "external · \(mode.rawValue)"
        case .web(let url): role = "web · \(url)"
        case .media(let shown): role = "\(shown.kind.rawValue) · \(shown.item.path.split(separator: "/").last ?? "")"
        case .slide(.text): role = "playlist · text"
        case .slide(.card): role = "playlist · card"
        }
        let scale = info.scale > 1 ? " @\(info.scale)x" : ""
        let state = screens.hasShown(screen) ? "" : " · waiting"
        return ControllerScene.Row(
            name: info.displayName, detail: "\(role) · \(info.modeWidth)×\(info.modeHeight)\(scale)\(state)",
            // Live latency figures, for installers (`info = true`), as of this frame: the controller redraws for every
            // message, so they follow each one.
            figures: product.model.roles.config.theme.showsInfo ? screen.timeline.latency.panelText(now: now) : nil,
            isController: kind == .controller)
    }
}
