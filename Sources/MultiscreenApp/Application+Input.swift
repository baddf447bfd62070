import Foundation
import Messaging
import Screens
import Wayland

/// Keyboard, pointer and touch: all of it drives the controller UI (``ControllerPanel``), wherever the
/// compositor happens to put keyboard focus, so a kiosk needs no pointer to focus the right window first.
extension Application {
    func attach(seat: Seat) {
        self.seat = seat
        seat.onKey = { [unowned self] event in
            guard let key = PanelKey(keysym: event.keysym, text: event.text, shift: event.modifiers.contains(.shift))
            else { return }
            let action = panel.handle(key, rows: tracker.count)
            controllerDirty = true
            if let action { perform(action) }
        }
        seat.onPointer = { [unowned self] event in
            if case .press(_, let surface, let x, let y) = event { press(surface: surface, x: x, y: y) }
        }
        seat.onTouch = { [unowned self] event in
            if case .down(_, let surface, let x, let y) = event { press(surface: surface, x: x, y: y) }
        }
        seat.onCapabilities = { [unowned self] capabilities in
            let names = [(Seat.Capabilities.keyboard, "keyboard"), (.pointer, "pointer"), (.touch, "touch")]
                .filter { capabilities.contains($0.0) }.map(\.1)
            logger.info("seat: \(names.isEmpty ? "no input devices" : names.joined(separator: ", "))")
        }
        // External screens are passive displays: no cursor over them.
        seat.hidesCursor = { [unowned self] surface in
            let screen = screen(for: surface)
            guard screen?.kind != .controller else { return false }
            logger.debug("cursor hidden over \(screen?.output.displayName ?? "an unknown surface")")
            return true
        }
        loop.watch(seat.keyRepeater.fileDescriptor) { [unowned seat] in seat.keyRepeater.handleTimer() }
    }

    func screen(for surface: OpaquePointer?) -> Screen? {
        guard let surface else { return nil }
        return screens.values.first { $0.window?.surface == surface }
    }

    /// A press at surface-local (logical) coordinates: mapped to buffer pixels, hit-tested on the layout.
    private func press(surface: OpaquePointer?, x: Double, y: Double) {
        guard var screen = screen(for: surface) else { return }
        var (x, y) = (x, y)
        if spanningHost != nil, let target = spanningTarget(x: x, y: y) {
            (screen, x, y) = (target.screen, target.x, target.y)
        }
        guard screen.kind == .controller, let geometry = drawingGeometry(of: screen) else { return }
        let sx = Float(geometry.bufferWidth) / Float(max(geometry.logicalWidth, 1))
        let sy = Float(geometry.bufferHeight) / Float(max(geometry.logicalHeight, 1))
        let layout = ControllerLayout(
            width: Float(geometry.bufferWidth), height: Float(geometry.bufferHeight), rowCount: tracker.count)
        guard let control = layout.control(atX: Float(x) * sx, y: Float(y) * sy) else { return }
        let action = panel.press(control, rows: tracker.count)
        controllerDirty = true
        if let action { perform(action) }
    }

    func perform(_ action: ControllerPanel.Action) {
        switch action {
        case .send(let text):
            // Through the bus like every other message: one path, in order, with its enqueue timestamp.
            switch localProducer.trySend(.send(text: text, screen: nil)) {
            case .enqueued: break
            case .full: logger.warning("message not sent: the bus is full (counted as rejected-full); try again")
            case .rejected(let error): logger.warning("message not sent: \(error.message)")
            }
        case .cycleContent(let row):
            let outputs = tracker.outputs
            guard row < outputs.count, let screen = screens[outputs[row].registryName],
                case .external(let mode) = screen.kind
            else { return }
            let all = ContentMode.allCases
            let next = all[(all.firstIndex(of: mode)! + 1) % all.count]
            if let assignment = try? model.set(content: next, forScreen: outputs[row].displayName) {
                stateChanged = true
                apply(assignment)
            }
        }
    }
}
