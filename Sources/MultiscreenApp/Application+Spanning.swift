import Rendering
import Screens

/// Compositors that show one window across every output (cage: "one window at a time, spanning all outputs,
/// requested output ignored", shared/design.md). Multiscreen notices from the first configure and switches to a
/// single window that draws each screen's content in that screen's region, at its logical position.
extension Application {
    /// The union of every output's logical rectangle.
    var layoutBounds: (x: Int32, y: Int32, width: Int32, height: Int32) {
        let outputs = tracker.outputs
        guard !outputs.isEmpty else { return (0, 0, 0, 0) }
        let minX = outputs.map(\.logicalX).min()!
        let minY = outputs.map(\.logicalY).min()!
        let maxX = outputs.map { $0.logicalX + $0.logicalSize.width }.max()!
        let maxY = outputs.map { $0.logicalY + $0.logicalSize.height }.max()!
        return (minX, minY, maxX - minX, maxY - minY)
    }

    /// A window asked to be fullscreen on one output was configured to the size of the whole layout instead:
    /// the compositor spans it across every output, and shows only one window at a time anyway.
    func detectSpanning(_ screen: Screen, width: Int32, height: Int32) {
        guard spanningHost == nil, tracker.count > 1, let context else { return }
        let bounds = layoutBounds
        let own = screen.output.logicalSize
        guard width == bounds.width, height == bounds.height, width != own.width || height != own.height else {
            return
        }
        logger.notice(
            "one window spans every output (\(width)x\(height), e.g. cage): drawing every screen inside the window of \(screen.output.displayName)"
        )
        spanningHost = screen.output.registryName
        for other in screens.values where other !== screen && other.isOpen { other.tearDown(context: context) }
        controllerDirty = true
    }

    /// The region of `screen` inside the hosting window, in the host's buffer pixels.
    func spanningRegion(of screen: Screen, host: Screen) -> (x: Int32, y: Int32, geometry: SurfaceGeometry)? {
        guard let hostGeometry = host.geometry else { return nil }
        let bounds = layoutBounds
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

    /// The geometry a screen's content is drawn at: its own window's, or its region of the spanning window.
    func drawingGeometry(of screen: Screen) -> SurfaceGeometry? {
        guard let host = spanningHost.flatMap({ screens[$0] }) else { return screen.geometry }
        return spanningRegion(of: screen, host: host)?.geometry
    }

    /// Surface-local coordinates of the spanning window → the screen under them and coordinates local to it.
    func spanningTarget(x: Double, y: Double) -> (screen: Screen, x: Double, y: Double)? {
        let bounds = layoutBounds
        let gx = Int32(x) + bounds.x
        let gy = Int32(y) + bounds.y
        for info in tracker.outputs {
            let size = info.logicalSize
            guard gx >= info.logicalX, gx < info.logicalX + size.width, gy >= info.logicalY,
                gy < info.logicalY + size.height, let screen = screens[info.registryName]
            else { continue }
            return (screen, x - Double(info.logicalX - bounds.x), y - Double(info.logicalY - bounds.y))
        }
        return nil
    }
}
