import Outputs

/// Where the controller UI's parts go for a buffer of a given size. Pure, so hit testing and drawing agree.
///
/// ```
/// ┌ Multiscreen · controller ───────────────────── HEADLESS-1 ┐
/// │ Screens               │ [ text field ............ ] [Send] │
/// │ ▸ HEADLESS-2 external │ Messages                            │
/// │   messages · 640×360  │ 14:03:27 hello                      │
/// │ …                     │ …                                   │
/// └ 2 screens · 14 messages ─────────────────────────────────┘
/// ```
public struct ControllerLayout: Equatable, Sendable {
    public var bounds: Rect
    /// Sizes derive from this: min(height, width × 9 / 16), so the UI scales with the output.
    public var unit: Float
    public var header: Rect
    public var screensTitle: Rect
    /// Every row's rectangle, scrolled: only ``visibleRows`` lie inside ``rowsViewport`` (the others are above or
    /// below it and are neither drawn nor hit).
    public var rows: [Rect]
    /// The part of the left column the screen list scrolls in.
    public var rowsViewport: Rect
    /// The rows shown: scrolled just enough to keep the focused row visible.
    public var visibleRows: Range<Int>
    /// Below the list: the cards waiting for a screen (empty when there are none).
    public var waitingCards: Rect
    public var textField: Rect
    public var sendButton: Rect
    public var logTitle: Rect
    public var log: Rect
    public var status: Rect
    public var titleSize: Int
    public var textSize: Int
    public var smallSize: Int
    public var padding: Float

    /// - Parameters:
    ///   - focusedRow: the screen row with keyboard focus, kept visible by scrolling the list.
    ///   - waitingCardCount: how many cards wait for a screen (at most 5 are listed under the screens).
    public init(width: Float, height: Float, rowCount: Int, focusedRow: Int? = nil, waitingCardCount: Int = 0) {
        bounds = Rect(x: 0, y: 0, width: width, height: height)
        unit = max(min(height, width * 9 / 16), 120)
        padding = (unit * 0.025).rounded()
        titleSize = Int(unit * 0.055)
        textSize = Int(unit * 0.042)
        smallSize = Int(unit * 0.032)
        let line = Float(textSize) * 1.6
        header = Rect(x: 0, y: 0, width: width, height: Float(titleSize) * 1.8)
        status = Rect(x: 0, y: height - Float(smallSize) * 2, width: width, height: Float(smallSize) * 2)
        let top = header.y + header.height + padding
        let left = (width * 0.38).rounded()
        screensTitle = Rect(x: padding, y: top, width: left - 2 * padding, height: line)
        // Name, detail, and the screen's live latency figures.
        let rowHeight = Float(textSize) * 1.3 + Float(smallSize) * 2.6 + padding
        let pad = padding
        let listTop = top + line
        let waitingHeight =
            waitingCardCount > 0 ? Float(smallSize) * (1.5 + 1.4 * Float(min(waitingCardCount, 5))) + padding : 0
        let listBottom = max(status.y - padding - waitingHeight, listTop)
        rowsViewport = Rect(x: pad, y: listTop, width: left - 2 * pad, height: listBottom - listTop)
        waitingCards = Rect(
            x: pad, y: listBottom + padding, width: left - 2 * pad, height: max(waitingHeight - padding, 0))
        let pitch = rowHeight + pad / 2
        let fitting = max(Int((rowsViewport.height + pad / 2) / pitch), 1)
        var first = 0
        if let focusedRow, focusedRow >= fitting { first = focusedRow - fitting + 1 }
        first = max(min(first, rowCount - fitting), 0)
        visibleRows = first..<min(rowCount, first + fitting)
        rows = (0..<rowCount).map { i in
            Rect(x: pad, y: listTop + Float(i - first) * pitch, width: left - 2 * pad, height: rowHeight)
        }
        let right = left + padding
        let fieldHeight = Float(textSize) * 2
        let buttonWidth = (unit * 0.22).rounded()
        textField = Rect(x: right, y: top, width: width - right - buttonWidth - 2 * padding, height: fieldHeight)
        sendButton = Rect(x: width - buttonWidth - padding, y: top, width: buttonWidth, height: fieldHeight)
        logTitle = Rect(x: right, y: top + fieldHeight + padding, width: width - right - padding, height: line)
        log = Rect(
            x: right, y: logTitle.y + line, width: width - right - padding,
            height: max(status.y - padding - (logTitle.y + line), 0))
    }

    /// The control at a point in buffer pixels, for pointer and touch presses.
    public func control(atX x: Float, y: Float) -> ControllerPanel.Control? {
        if textField.contains(x: x, y: y) { return .textField }
        if sendButton.contains(x: x, y: y) { return .sendButton }
        if let row = visibleRows.first(where: { rows[$0].contains(x: x, y: y) }) { return .screen(row) }
        return nil
    }
}
