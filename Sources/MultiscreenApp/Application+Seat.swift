import Product
import Screens
import Wayland

/// Seat → the controller UI: keyboard, pointer and touch routed to a page or to the controller's panel.
extension Application {
    /// Keyboard, pointer and touch all drive the controller UI, wherever the compositor put keyboard focus, so a
    /// kiosk needs no pointer to focus the right window first.
    func attach(_ seat: Seat) {
        self.seat = seat
        seat.onKey = { [unowned self] event in
            // A page in place of the controller UI takes the keys the controller UI would have had.
            // So does a page on an external screen that a press gave the keyboard to (WebScreens says which).
            if web.key(
                controller: product.model.assignment.controller, keysym: event.keysym, text: event.text,
                modifiers: UInt32(event.modifiers.rawValue))
            {
                return
            }
            guard let key = PanelKey(keysym: event.keysym, text: event.text, shift: event.modifiers.contains(.shift))
            else { return }
            act(on: product.handle(key: key))
        }
        // Pointer and touch on a page go to its web view.
        seat.onPointer = { [unowned self] event in
            if web.pointer(event, controller: product.model.assignment.controller, target: pageTarget) { return }
            if case .press(_, let surface, let x, let y) = event { press(surface: surface, x: x, y: y) }
        }
        seat.onTouch = { [unowned self] event in
            if web.touch(event, controller: product.model.assignment.controller, target: pageTarget) { return }
            if case .down(_, let surface, let x, let y) = event { press(surface: surface, x: x, y: y) }
        }
        // External screens are passive displays: no cursor over them.
        seat.hidesCursor = { [unowned self] surface in
            guard let screen = screens.screen(of: surface),
                product.kind(of: screen.output.registryName) != .controller,
                !product.kind(of: screen.output.registryName).isWeb  // a page takes the pointer: it shows
            else { return false }
            logger.debug("cursor hidden over \(screen.output.displayName)")
            return true
        }
        loop.watch(seat.keyRepeater.fileDescriptor) { [unowned seat] in seat.keyRepeater.handleTimer() }
    }

    /// The screen shown at a surface-local point, named for ``WebScreens``' input routing.
    private func pageTarget(_ surface: SurfaceID?, _ x: Double, _ y: Double) -> (
        name: UInt32, displayName: String, x: Double, y: Double
    )? {
        screens.target(of: surface, x: x, y: y).map {
            ($0.screen.output.registryName, $0.screen.output.displayName, $0.x, $0.y)
        }
    }

    /// A press at surface-local (logical) coordinates: mapped to buffer pixels, hit-tested on the layout.
    private func press(surface: SurfaceID?, x: Double, y: Double) {
        guard let target = screens.target(of: surface, x: x, y: y),
            product.kind(of: target.screen.output.registryName) == .controller,
            let geometry = screens.drawingGeometry(of: target.screen)
        else { return }
        let layout = product.controllerLayout(width: Float(geometry.bufferWidth), height: Float(geometry.bufferHeight))
        let sx = Float(geometry.bufferWidth) / Float(max(geometry.logicalWidth, 1))
        let sy = Float(geometry.bufferHeight) / Float(max(geometry.logicalHeight, 1))
        guard let control = layout.control(atX: Float(target.x) * sx, y: Float(target.y) * sy) else { return }
        act(on: product.press(control))
    }
}
