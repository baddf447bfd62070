import Screens

/// The controller UI: its keys and presses, where its parts are, and which screens show the pointer.
extension ProductController {
    /// Where the controller UI's parts are for a buffer of this size, as drawn and as hit-tested: one place, so a
    /// click lands on what is shown (the screens list scrolls to the focused row; waiting cards take room).
    public func controllerLayout(width: Float, height: Float) -> ControllerLayout {
        var panel = panel
        panel.clampFocus(rows: outputs.count)
        var focusedRow: Int?
        if case .screen(let index) = panel.focus { focusedRow = index }
        return ControllerLayout(
            width: width, height: height, rowCount: outputs.count, focusedRow: focusedRow,
            waitingCardCount: model.cards.waiting.count)
    }

    /// The control of the controller UI at a point of a screen's buffer (pixels: the layout's own coordinates), nil
    /// when that screen does not show the controller UI or no control is there.
    public func control(
        atX x: Float, y: Float, bufferWidth: Float, bufferHeight: Float, onScreen registryName: UInt32
    ) -> ControllerPanel.Control? {
        guard kind(of: registryName) == .controller else { return nil }
        return controllerLayout(width: bufferWidth, height: bufferHeight).control(atX: x, y: y)
    }

    /// Whether the pointer over the screen on this output shows no cursor: external screens are passive displays. The
    /// controller UI shows one, and so does a page (it takes the pointer).
    public func hidesCursor(onScreen registryName: UInt32) -> Bool {
        let kind = kind(of: registryName)
        return kind != .controller && !kind.isWeb
    }

    /// A key for the controller UI (wherever the compositor put keyboard focus).
    public mutating func handle(key: PanelKey) -> Outcome {
        let action = panel.handle(key, rows: outputs.count)
        return perform(action)
    }

    /// A pointer or touch press on one of the controller UI's controls.
    public mutating func press(_ control: ControllerPanel.Control) -> Outcome {
        let action = panel.press(control, rows: outputs.count)
        return perform(action)
    }

    private mutating func perform(_ action: ControllerPanel.Action?) -> Outcome {
        var outcome = Outcome()
        outcome.changes.controllerUI = true
        switch action {
        case nil:
            break
        case .send(let text)?:
            // Through the bus like every other message: one path, in order, with its enqueue timestamp.
            outcome.toSend = .send(text: text, screen: nil)
        case .cycleContent(let row)?:
            guard row < outputs.count, case .external(let mode) = kind(of: outputs[row].registryName) else { break }
            let all = ContentMode.cycle
            let next = all[((all.firstIndex(of: mode) ?? -1) + 1) % all.count]
            if let assignment = try? model.set(content: next, forScreen: outputs[row].displayName) {
                absorb(assignment, into: &outcome)
                outcome.changes.state = true
            }
        }
        return saving(outcome)
    }
}
