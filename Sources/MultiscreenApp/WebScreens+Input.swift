import Wayland
import WebContent

/// Input for the pages: keys, pointer and touch go to the page that has the focus (``InputFocus``), and a press
/// moves the keyboard between the pages and the controller.
extension WebScreens {
    /// Where pointer and touch input went last, and which page has the keyboard.
    ///
    /// The keyboard follows Multiscreen's own focus, not the compositor's (a kiosk needs no pointer to focus the
    /// right window first): keys go to the controller, a page in its place included, until a press (a pointer
    /// button or a finger) lands on a page on an external screen; that page then has the keys until a press lands
    /// anywhere else, or the page goes.
    struct InputFocus {
        /// The external screen whose page has the keyboard (nil: the controller has it).
        var keyboard: UInt32?
        /// The page the pointer is over and where, in that screen's logical coordinates (`scroll` carries none).
        var pointer: (name: UInt32, x: Double, y: Double)?
        /// The page each pointer button went down on: its release goes there too, wherever the pointer is then.
        var buttons: [UInt32: UInt32] = [:]
        /// The page each touch point went down on.
        var touches: [Int32: UInt32] = [:]
    }

    /// A key: for the page that has the keyboard, else for the page in place of the `controller` UI, if any.
    /// - Returns: false when the keys are the native controller UI's.
    func key(controller: UInt32?, keysym: UInt32, text: String, modifiers: UInt32) -> Bool {
        guard let name = focus.keyboard ?? controller, let page = pages[name] else { return false }
        page.view.key(keysym: keysym, text: text, modifiers: modifiers)
        return true
    }

    /// A press landed on the screen with this registry name (nil: on no screen of ours): a page on an external
    /// screen takes the keyboard, anything else gives it back to the controller.
    private func pressed(on name: UInt32?, controller: UInt32?, displayName: String) {
        let next = name.flatMap { $0 != controller && pages[$0] != nil ? $0 : nil }
        guard next != focus.keyboard else { return }
        focus.keyboard = next
        logger.info("keyboard → \(next == nil ? "the controller" : "the page on \(displayName)")")
    }

    /// A pointer event for the page under the pointer. `target` maps a surface-local position to the screen shown
    /// there and the position in that screen's logical coordinates. - Returns: whether a page took the event (the
    /// native controller UI acts on it otherwise).
    func pointer(
        _ event: PointerEvent, controller: UInt32?,
        target: (SurfaceID?, Double, Double) -> (name: UInt32, displayName: String, x: Double, y: Double)?
    ) -> Bool {
        switch event {
        case .enter(let surface, let x, let y), .motion(let surface, let x, let y):
            guard let at = target(surface, x, y), let page = pages[at.name] else {
                focus.pointer = nil
                return false
            }
            focus.pointer = (at.name, at.x, at.y)
            page.view.pointerMotion(x: at.x, y: at.y)
            return true
        case .leave:
            focus.pointer = nil
            return false
        case .press(let button, let surface, let x, let y):
            let at = target(surface, x, y)
            pressed(on: at?.name, controller: controller, displayName: at?.displayName ?? "")
            guard let at, let page = pages[at.name] else { return false }
            focus.buttons[button] = at.name
            page.view.pointerButton(button, pressed: true, x: at.x, y: at.y)
            return true
        case .release(let button, let surface, let x, let y):
            guard let name = focus.buttons.removeValue(forKey: button), let page = pages[name] else { return false }
            let at = target(surface, x, y).flatMap { $0.name == name ? $0 : nil }
            page.view.pointerButton(button, pressed: false, x: at?.x ?? 0, y: at?.y ?? 0)
            return true
        case .scroll(_, let dx, let dy, _, _):
            guard let at = focus.pointer, let page = pages[at.name] else { return false }
            page.view.scroll(dx: dx, dy: dy, x: at.x, y: at.y)
            return true
        }
    }

    /// A touch event for the page the point went down on. - Returns: whether a page took it.
    func touch(
        _ event: TouchEvent, controller: UInt32?,
        target: (SurfaceID?, Double, Double) -> (name: UInt32, displayName: String, x: Double, y: Double)?
    ) -> Bool {
        switch event {
        case .down(let id, let surface, let x, let y):
            let at = target(surface, x, y)
            pressed(on: at?.name, controller: controller, displayName: at?.displayName ?? "")
            guard let at, let page = pages[at.name] else { return false }
            focus.touches[id] = at.name
            page.view.touch(.down, id: id, x: at.x, y: at.y)
            return true
        case .motion(let id, let surface, let x, let y), .up(let id, let surface, let x, let y):
            guard let name = focus.touches[id], let page = pages[name] else { return false }
            // A finger that slid onto another screen of a spanning window stays where it last was on its own.
            let at = target(surface, x, y).flatMap { $0.name == name ? $0 : nil }
            if case .up = event {
                focus.touches[id] = nil
                page.view.touch(.up, id: id, x: at?.x ?? 0, y: at?.y ?? 0)
            } else if let at {
                page.view.touch(.motion, id: id, x: at.x, y: at.y)
            }
            return true
        case .cancel:
            for name in Set(focus.touches.values) { pages[name]?.view.cancelTouches() }
            focus.touches = [:]
            return false
        }
    }
}
