import Product
import Screens
import Wayland

/// Seat → the controller UI: keyboard, pointer and touch routed to a page or to the controller's panel.
extension Application {
    /// Keyboard, pointer and touch all drive the controller UI, wherever the compositor put keyboard focus, so a
    /// kiosk needs no pointer to focus the right window first.
    func attach(_ input: InputSeat) {
        seat = input
        let seat = input.seat
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
            if web.pointer(event, controller: product.model.assignment.controller, target: screens.pageTarget) {
                return
            }
            if case .press(_, let surface, let x, let y) = event { press(surface: surface, x: x, y: y) }
        }
        seat.onTouch = { [unowned self] event in
            if web.touch(event, controller: product.model.assignment.controller, target: screens.pageTarget) { return }
            if case .down(_, let surface, let x, let y) = event { press(surface: surface, x: x, y: y) }
        }
        seat.hidesCursor = { [unowned self] surface in
            guard let screen = screens.screen(of: surface), product.hidesCursor(onScreen: screen.output.registryName)
            else { return false }
            logger.debug("cursor hidden over \(screen.output.displayName)")
            return true
        }
    }

    /// A press at surface-local (logical) coordinates: the screen set says where it lands in a screen's drawing, the
    /// product which control of the controller UI is there, if any.
    private func press(surface: SurfaceID?, x: Double, y: Double) {
        guard let point = screens.bufferPoint(of: surface, x: x, y: y),
            let control = product.control(
                atX: point.x, y: point.y, bufferWidth: point.width, bufferHeight: point.height,
                onScreen: point.screen.output.registryName)
        else { return }
        act(on: product.press(control))
    }
}
