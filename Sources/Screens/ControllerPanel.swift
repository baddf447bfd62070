/// The controller UI's interactive state: which control has focus and what the text field holds.
///
/// Everything is reachable with the keyboard alone (a gesture-less kiosk has no pointer): Tab and Shift+Tab cycle
/// through the text field, the Send button and the screen rows; Up and Down move between rows (and from the
/// field down into the list); Enter activates. Pointer and touch presses focus and activate the same controls
/// (``press(_:)``), so there is one code path per action.
public struct ControllerPanel: Equatable, Sendable {
    public enum Control: Hashable, Sendable {
        case textField
        case sendButton
        /// A row of the screens list, by position.
        case screen(Int)
    }

    /// What activating a control asks the application to do.
    public enum Action: Equatable, Sendable {
        /// Send this text to every external screen.
        case send(String)
        /// Cycle the content mode of the screen in this row.
        case cycleContent(row: Int)
    }

    public private(set) var focus: Control = .textField
    public private(set) var text = ""
    /// Caret position in characters (grapheme clusters) from the start of ``text``.
    public private(set) var caret = 0
    /// The largest text the field accepts, in characters (the bus's limit is far larger, in bytes).
    public static let maximumLength = 2000

    public init() {}

    /// Applies one key. - Returns: an action when the key activated a control.
    public mutating func handle(_ key: PanelKey, rows: Int) -> Action? {
        clampFocus(rows: rows)
        switch key {
        case .tab: focus = next(after: focus, rows: rows)
        case .backTab: focus = previous(before: focus, rows: rows)
        case .down:
            switch focus {
            case .textField, .sendButton: if rows > 0 { focus = .screen(0) }
            case .screen(let i): if i + 1 < rows { focus = .screen(i + 1) }
            }
        case .up:
            if case .screen(let i) = focus { focus = i > 0 ? .screen(i - 1) : .textField }
        case .enter: return activate(focus)
        case .escape:
            if focus == .textField {
                text = ""
                caret = 0
            } else {
                focus = .textField
            }
        case .text(let typed): if focus == .textField { insert(typed) }
        case .backspace:
            guard focus == .textField, caret > 0 else { return nil }
            let index = text.index(text.startIndex, offsetBy: caret - 1)
            text.remove(at: index)
            caret -= 1
        case .delete:
            guard focus == .textField, caret < text.count else { return nil }
            text.remove(at: text.index(text.startIndex, offsetBy: caret))
        case .left: if focus == .textField { caret = max(caret - 1, 0) }
        case .right: if focus == .textField { caret = min(caret + 1, text.count) }
        case .home: if focus == .textField { caret = 0 }
        case .end: if focus == .textField { caret = text.count }
        }
        return nil
    }

    /// A pointer or touch press on `control`: focus it and, for buttons and rows, activate it.
    public mutating func press(_ control: Control, rows: Int) -> Action? {
        focus = control
        clampFocus(rows: rows)
        return control == .textField ? nil : activate(focus)
    }

    /// Keeps focus valid when the screens list shrinks.
    public mutating func clampFocus(rows: Int) {
        if case .screen(let i) = focus, i >= rows { focus = rows > 0 ? .screen(rows - 1) : .textField }
    }

    private mutating func activate(_ control: Control) -> Action? {
        switch control {
        case .textField, .sendButton:
            let message = text.trimmingWhitespace
            guard !message.isEmpty else { return nil }
            text = ""
            caret = 0
            return .send(message)
        case .screen(let row):
            return .cycleContent(row: row)
        }
    }

    private mutating func insert(_ typed: String) {
        let room = Self.maximumLength - text.count
        guard room > 0 else { return }
        let accepted = String(typed.prefix(room))
        // Insert, then recount: a combining mark typed after a letter joins its cluster rather than adding one.
        let index = text.index(text.startIndex, offsetBy: caret)
        let before = text[..<index]
        let after = text[index...]
        let head = String(before) + accepted
        text = head + after
        caret = head.count
    }

    private func order(rows: Int) -> [Control] { [.textField, .sendButton] + (0..<rows).map { .screen($0) } }

    private func next(after control: Control, rows: Int) -> Control {
        let all = order(rows: rows)
        let i = all.firstIndex(of: control) ?? 0
        return all[(i + 1) % all.count]
    }

    private func previous(before control: Control, rows: Int) -> Control {
        let all = order(rows: rows)
        let i = all.firstIndex(of: control) ?? 0
        return all[(i + all.count - 1) % all.count]
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
