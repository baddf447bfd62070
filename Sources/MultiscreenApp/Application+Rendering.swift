import Glibc
import Rendering
import Screens

/// One render pass: the controller first (its picture is copied for the mirrors as it is drawn), then every
/// other dirty screen with its content.
extension Application {
    func renderDirtyScreens() {
        guard let context else { return }
        let cpuBefore = Clock.nanoseconds(CLOCK_PROCESS_CPUTIME_ID)
        if controllerDirty {
            controllerDirty = false
            screens.values.first { $0.kind == .controller }?.invalidate()
        }
        var drawn = 0
        if let hostID = spanningHost, let host = screens[hostID] {
            if renderSpanning(host: host, context: context) { drawn = 1 }
        } else {
            // A screen that has never shown anything goes first: when an output appears, every other screen also
            // redraws ("screen 2 of 3"), and the newcomer's first frame must not wait behind them. Then the
            // controller, so that mirrors drawn after it in this pass show this frame's controller.
            let ordered = screens.values.sorted { rank($0) < rank($1) }
            for screen in ordered {
                let rendered = screen.renderIfNeeded(
                    context: context, canvas: { try makeCanvas() }, globals: globals,
                    draw: { canvas, geometry in draw(screen, on: canvas, geometry: geometry) })
                if rendered { drawn += 1 }
            }
        }
        if drawn > 0 {
            // Process CPU time covers llvmpipe's rasteriser threads too: with software GL this is CPU + "GPU".
            let cpu = Clock.nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - cpuBefore
            logger.debug("render pass: \(drawn) screens, \(Screen.milliseconds(cpu)) ms CPU")
        }
    }

    private func rank(_ screen: Screen) -> Int {
        (screen.hasCommitted ? 2 : 0) + (screen.kind == .controller ? 0 : 1)
    }

    /// One window for all screens: each screen's content drawn into its region, at its logical position, the
    /// controller's first.
    private func renderSpanning(host: Screen, context: GraphicsContext) -> Bool {
        if screens.values.contains(where: { $0 !== host && $0.needsDrawing }) { host.invalidate() }
        return host.renderIfNeeded(
            context: context, canvas: { try makeCanvas() }, globals: globals,
            draw: { canvas, geometry in
                let ordered = tracker.outputs.compactMap { screens[$0.registryName] }
                    .sorted { ($0.kind == .controller ? 0 : 1) < ($1.kind == .controller ? 0 : 1) }
                for screen in ordered {
                    guard let region = spanningRegion(of: screen, host: host) else { continue }
                    canvas.region = (region.x, region.y, geometry.bufferHeight)
                    draw(screen, on: canvas, geometry: region.geometry)
                    if screen !== host { screen.drawnElsewhere() }
                }
                canvas.region = nil
            })
    }

    private func draw(_ screen: Screen, on canvas: Canvas, geometry: SurfaceGeometry) {
        switch screen.kind {
        case .controller:
            drawControllerUI(on: canvas, width: geometry.bufferWidth, height: geometry.bufferHeight, screen: screen)
            let mirrors = screens.values.filter { $0.kind == .external(.mirror) }
            if !mirrors.isEmpty {
                let target = mirrorTarget ?? MirrorTexture()
                mirrorTarget = target
                canvas.capture(into: target)
                for mirror in mirrors { mirror.invalidate() }
            }
        case .external(.mirror):
            // The texture holds the controller's last frame: shown only while there is a controller to mirror.
            if let target = mirrorTarget, screens.values.contains(where: { $0.kind == .controller }) {
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
