import Foundation
import Outputs
import Rendering
import Screens
import TextRendering

/// The controller UI: the screens with their role, mode and status, a text field and Send button, the message
/// log and the bus status, with a visible focus ring so it works from the keyboard alone.
enum ControllerScene {
    struct Row {
        var name: String
        var detail: String
        /// The screen's message latency (last minute), on the row's third line.
        var figures: String? = nil
        var isController: Bool
    }

    struct Content {
        var title: String
        var rows: [Row]
        var panel: ControllerPanel
        var log: [LoggedMessage]
        var waitingCards: [Card]
        var status: String
        var background: RGBColor
    }

    static func draw(on canvas: Canvas, layout: ControllerLayout, content: Content) {
        let l = layout
        canvas.begin(width: Int32(l.bounds.width), height: Int32(l.bounds.height), background: content.background)
        canvas.fill(x: 0, y: 0, width: l.header.width, height: l.header.height, color: SceneStyle.panel, alpha: 0.55)
        canvas.text(
            "Multiscreen · controller", x: l.padding, y: l.padding / 2, pixelSize: l.titleSize,
            color: SceneStyle.text, maxWidth: Int(l.bounds.width * 0.6))
        canvas.text(
            content.title, x: l.bounds.width * 0.6, y: l.padding, pixelSize: l.textSize, color: SceneStyle.dimText,
            maxWidth: Int(l.bounds.width * 0.4 - l.padding), alignment: .end)

        // Screens, scrolled to keep the focused one visible.
        canvas.text(
            "Screens", x: l.screensTitle.x, y: l.screensTitle.y, pixelSize: l.textSize, color: SceneStyle.text,
            maxWidth: Int(l.screensTitle.width))
        if l.visibleRows.count < content.rows.count, !l.visibleRows.isEmpty {
            canvas.text(
                "\(l.visibleRows.lowerBound + 1)–\(l.visibleRows.upperBound) of \(content.rows.count)",
                x: l.screensTitle.x, y: l.screensTitle.y + (Float(l.textSize) - Float(l.smallSize)) / 2,
                pixelSize: l.smallSize, color: SceneStyle.dimText, maxWidth: Int(l.screensTitle.width),
                alignment: .end)
        }
        for index in l.visibleRows where index < content.rows.count {
            let row = content.rows[index]
            let rect = l.rows[index]
            canvas.fill(
                x: rect.x, y: rect.y, width: rect.width, height: rect.height, color: SceneStyle.panel, alpha: 0.45)
            if content.panel.focus == .screen(index) { focusRing(canvas, rect, l) }
            let mark = row.isController ? "★ " : ""
            canvas.text(
                mark + row.name, x: rect.x + l.padding / 2, y: rect.y + l.padding / 3, pixelSize: l.textSize,
                color: SceneStyle.text, maxWidth: Int(rect.width - l.padding))
            canvas.text(
                row.detail, x: rect.x + l.padding / 2, y: rect.y + Float(l.textSize) * 1.35 + l.padding / 3,
                pixelSize: l.smallSize, color: SceneStyle.dimText, maxWidth: Int(rect.width - l.padding))
            if let figures = row.figures {
                canvas.text(
                    figures, x: rect.x + l.padding / 2,
                    y: rect.y + Float(l.textSize) * 1.35 + Float(l.smallSize) * 1.3 + l.padding / 3,
                    pixelSize: l.smallSize, color: SceneStyle.dimText, maxWidth: Int(rect.width - l.padding))
            }
        }
        if !content.waitingCards.isEmpty {
            let area = l.waitingCards
            var y = area.y
            canvas.text(
                "Cards waiting for a screen", x: area.x, y: y, pixelSize: l.smallSize, color: SceneStyle.text,
                maxWidth: Int(area.width))
            y += Float(l.smallSize) * 1.5
            for card in content.waitingCards.prefix(5) {
                canvas.text(
                    "#\(card.id) \(card.text)", x: area.x, y: y, pixelSize: l.smallSize,
                    color: SceneStyle.dimText, maxWidth: Int(area.width))
                y += Float(l.smallSize) * 1.4
            }
        }

        // Text field with caret, and the Send button.
        let field = l.textField
        canvas.fill(x: field.x, y: field.y, width: field.width, height: field.height, color: SceneStyle.field)
        if content.panel.focus == .textField { focusRing(canvas, field, l) }
        drawField(canvas, content.panel, field, l)
        let send = l.sendButton
        canvas.fill(x: send.x, y: send.y, width: send.width, height: send.height, color: SceneStyle.button)
        if content.panel.focus == .sendButton { focusRing(canvas, send, l) }
        let label = canvas.measure("Send", pixelSize: l.textSize)
        canvas.text(
            "Send", x: send.x, y: send.y + (send.height - Float(label.height)) / 2, pixelSize: l.textSize,
            color: SceneStyle.text, maxWidth: Int(send.width), alignment: .center)

        // Message log, newest first, a line each (time and target, then the text as a block of its own so that its
        // direction cannot move the time), as many as fit above the status bar.
        canvas.text(
            "Messages", x: l.logTitle.x, y: l.logTitle.y, pixelSize: l.textSize, color: SceneStyle.text,
            maxWidth: Int(l.logTitle.width))
        var y = l.log.y
        let lineHeight = Float(l.smallSize) * 1.4 + l.padding / 3
        for message in content.log {
            guard y + Float(l.smallSize) * 1.4 <= l.log.y + l.log.height else { break }
            let target = message.screen.map { " → \($0)" } ?? ""
            let prefix = "\(SceneStyle.clock(message.receivedAt.timeIntervalSince1970))\(target)"
            let prefixStyle = TextStyle(pixelSize: l.smallSize, color: SceneStyle.dimText.textColor)
            let prefixBox = TextBox.singleLine(maxWidth: Int(l.log.width / 2))
            let prefixExtent = canvas.extent(of: prefix, style: prefixStyle, box: prefixBox)
            let x = l.log.x + Float(prefixExtent.width) + l.padding / 2
            let textStyle = TextStyle(pixelSize: l.smallSize, color: SceneStyle.text.textColor)
            let textBox = TextBox.singleLine(maxWidth: Int(l.log.x + l.log.width - x))
            let textExtent = canvas.extent(of: message.text, style: textStyle, box: textBox)
            // On one baseline, whichever font (a CJK or emoji fallback is taller) each part uses.
            let baseline = max(prefixExtent.baseline, textExtent.baseline)
            canvas.text(
                prefix, x: l.log.x, y: y + Float(baseline - prefixExtent.baseline), style: prefixStyle, box: prefixBox)
            canvas.text(
                message.text, x: x, y: y + Float(baseline - textExtent.baseline), style: textStyle, box: textBox)
            y += lineHeight
        }

        // Status bar.
        canvas.fill(
            x: 0, y: l.status.y, width: l.status.width, height: l.status.height, color: SceneStyle.panel, alpha: 0.55)
        canvas.text(
            content.status, x: l.padding, y: l.status.y + Float(l.smallSize) / 3, pixelSize: l.smallSize,
            color: SceneStyle.dimText, maxWidth: Int(l.status.width - 2 * l.padding))
    }

    private static func drawField(_ canvas: Canvas, _ panel: ControllerPanel, _ field: Rect, _ l: ControllerLayout) {
        let inner = field.inset(by: l.padding / 2)
        let textY = field.y + (field.height - Float(l.textSize) * 1.25) / 2
        if panel.text.isEmpty && panel.focus != .textField {
            canvas.text(
                "Type a message…", x: inner.x, y: textY, pixelSize: l.textSize, color: SceneStyle.dimText,
                maxWidth: Int(inner.width))
            return
        }
        // Keep the caret visible: show the text from the first character that lets the part before the caret fit.
        // Binary search over how many characters to drop (the width only shrinks as more are dropped), so a long
        // text costs a few measurements per frame, not one per character.
        let characters = Array(panel.text)
        func width(dropping count: Int) -> Int {
            canvas.measure(String(characters[count..<panel.caret]), pixelSize: l.textSize).width
        }
        var low = 0
        var high = panel.caret
        while low < high {
            let middle = (low + high) / 2
            if width(dropping: middle) > Int(inner.width) { low = middle + 1 } else { high = middle }
        }
        let shown = String(characters[low...])
        if !shown.isEmpty {
            canvas.text(
                shown, x: inner.x, y: textY, pixelSize: l.textSize, color: SceneStyle.fieldText,
                maxWidth: Int(inner.width))
        }
        if panel.focus == .textField {
            // Pango places the caret: in right-to-left text it sits to the left of what was typed before it.
            let offset = Float(canvas.caretX(in: shown, beforeCharacter: panel.caret - low, pixelSize: l.textSize))
            canvas.fill(
                x: inner.x + offset, y: textY, width: max(l.unit * 0.003, 2), height: Float(l.textSize) * 1.25,
                color: SceneStyle.fieldText)
        }
    }

    private static func focusRing(_ canvas: Canvas, _ rect: Rect, _ l: ControllerLayout) {
        let t = max((l.unit * 0.006).rounded(), 2)
        let r = Rect(x: rect.x - t, y: rect.y - t, width: rect.width + 2 * t, height: rect.height + 2 * t)
        canvas.fill(x: r.x, y: r.y, width: r.width, height: t, color: SceneStyle.focus)
        canvas.fill(x: r.x, y: r.y + r.height - t, width: r.width, height: t, color: SceneStyle.focus)
        canvas.fill(x: r.x, y: r.y, width: t, height: r.height, color: SceneStyle.focus)
        canvas.fill(x: r.x + r.width - t, y: r.y, width: t, height: r.height, color: SceneStyle.focus)
    }
}
