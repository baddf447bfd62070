import Glibc
import Rendering
import Screens

/// One render pass: the controller UI once (into the mirror texture when anyone mirrors it), then every dirty
/// screen with its content.
extension Application {
    func renderDirtyScreens() {
        guard let context else { return }
        let cpuBefore = Clock.nanoseconds(CLOCK_PROCESS_CPUTIME_ID)
        // The controller's own surface changing (configure, resize, scale) changes the mirrored picture too.
        let controller = screens.values.first { $0.kind == .controller }
        if controllerDirty || controller?.needsDrawing == true { prepareController(context: context) }
        if let hostID = spanningHost, let host = screens[hostID] {
            renderSpanning(host: host, context: context)
            return
        }
        // A screen that has never shown anything goes first: when an output appears, every other screen also
        // redraws ("screen 2 of 3"), and the newcomer's first frame must not wait behind them.
        let ordered = screens.values.sorted { !$0.hasCommitted && $1.hasCommitted }
        var drawn = 0
        for screen in ordered {
            let rendered = screen.renderIfNeeded(
                context: context, canvas: { try makeCanvas() }, globals: globals,
                draw: { canvas, geometry in draw(screen, on: canvas, geometry: geometry) })
            if rendered { drawn += 1 }
        }
        if drawn > 0 {
            // Process CPU time covers llvmpipe's rasteriser threads too: with software GL this is CPU + "GPU".
            let cpu = Clock.nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - cpuBefore
            logger.debug("render pass: \(drawn) screens, \(Screen.milliseconds(cpu)) ms CPU")
        }
    }

    /// One window for all screens: each screen's content drawn into its region, at its logical position.
    private func renderSpanning(host: Screen, context: GraphicsContext) {
        if screens.values.contains(where: { $0 !== host && $0.needsDrawing }) { host.invalidate() }
        host.renderIfNeeded(
            context: context, canvas: { try makeCanvas() }, globals: globals,
            draw: { canvas, geometry in
                for info in tracker.outputs {
                    guard let screen = screens[info.registryName],
                        let region = spanningRegion(of: screen, host: host)
                    else { continue }
                    canvas.region = (region.x, region.y, geometry.bufferHeight)
                    draw(screen, on: canvas, geometry: region.geometry)
                    if screen !== host { screen.drawnElsewhere() }
                }
                canvas.region = nil
            })
    }

    /// The controller UI changed: mark its screen dirty and, when some screen mirrors it, draw it once into the
    /// offscreen texture they all sample ("rendered once per frame, not once per screen").
    private func prepareController(context: GraphicsContext) {
        controllerDirty = false
        mirrorFresh = false
        guard let controller = screens.values.first(where: { $0.kind == .controller }) else { return }
        controller.invalidate()
        let mirrors = screens.values.filter { $0.kind == .external(.mirror) && ($0.isOpen || spanningHost != nil) }
        guard !mirrors.isEmpty else { return }
        guard let geometry = drawingGeometry(of: controller), context.makeCurrent(nil), let canvas = try? makeCanvas()
        else {
            // Not configured yet: mirrors show messages until the controller has a size, then this runs again.
            controllerDirty = true
            return
        }
        let target = mirrorTarget ?? OffscreenTarget()
        mirrorTarget = target
        guard target.bind(width: geometry.bufferWidth, height: geometry.bufferHeight) else { return }
        let region = canvas.region
        canvas.region = nil
        drawControllerUI(on: canvas, width: geometry.bufferWidth, height: geometry.bufferHeight, screen: controller)
        canvas.region = region
        OffscreenTarget.bindWindow()
        mirrorFresh = true
        for mirror in mirrors { mirror.invalidate() }
    }

    private func draw(_ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry) {
        switch screen.kind {
        case .controller:
            if mirrorFresh, let target = mirrorTarget, target.width == geometry.bufferWidth,
                target.height == geometry.bufferHeight
            {
                canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: screen.background)
                canvas.drawTexture(
                    target,
                    in: Rect(x: 0, y: 0, width: Float(geometry.bufferWidth), height: Float(geometry.bufferHeight)))
            } else {
                drawControllerUI(
                    on: canvas, width: geometry.bufferWidth, height: geometry.bufferHeight, screen: screen)
            }
        case .external(.mirror):
            if let target = mirrorTarget, mirrorFresh {
                ExternalScene.drawMirror(on: canvas, geometry: geometry, target: target)
            } else {
                drawMessages(screen, on: canvas, geometry: geometry)
            }
        case .external(.card):
            if let card = model.cards.card(onScreen: screen.output.displayName) {
                ExternalScene.drawCard(
                    on: canvas, geometry: geometry, summary: screen.summary, background: screen.background, card: card)
            } else {
                drawMessages(screen, on: canvas, geometry: geometry)
            }
        case .external(.blank):
            ExternalScene.drawBlank(on: canvas, geometry: geometry)
        case .external(.messages):
            drawMessages(screen, on: canvas, geometry: geometry)
        }
    }

    private func drawMessages(_ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry) {
        ExternalScene.drawMessages(
            on: canvas, geometry: geometry, summary: screen.summary, background: screen.background,
            messages: model.log.messages(for: screen.output.displayName))
    }

    private func drawControllerUI(on canvas: Canvas, width: Int32, height: Int32, screen: Screen) {
        let rows = screenRows
        panel.clampFocus(rows: rows.count)
        let layout = ControllerLayout(width: Float(width), height: Float(height), rowCount: rows.count)
        let content = ControllerScene.Content(
            title: screen.summary.title, rows: rows, panel: panel, log: model.log.newestFirst,
            waitingCards: model.cards.waiting, status: busStatusLine, background: screen.background)
        ControllerScene.draw(on: canvas, layout: layout, content: content)
    }
}
