import Foundation
import Outputs
import Rendering
import Screens

/// What an external screen shows, by content mode.
enum ExternalScene {
    /// `messages`: who this screen is (small, top), then the received messages, newest first and largest.
    static func drawMessages(
        on canvas: Canvas, geometry: SurfaceGeometry, summary: ScreenSummary, background: RGBColor,
        messages: [LoggedMessage]
    ) {
        let width = geometry.bufferWidth
        let height = geometry.bufferHeight
        canvas.begin(width: width, height: height, background: background)
        let unit = Float(max(min(height, width * 9 / 16), 90))
        let margin = unit * 0.05
        let maxWidth = Int(Float(width) - 2 * margin)
        canvas.fill(x: 0, y: 0, width: Float(width), height: unit * 0.02, color: ScreenPalette.text)
        var y = margin
        let title = canvas.text(
            summary.title, x: margin, y: y, pixelSize: Int(unit * 0.08), color: ScreenPalette.text,
            maxWidth: maxWidth)
        y += Float(title.height) + unit * 0.01
        let info = summary.lines.joined(separator: " · ")
        let infoSize = canvas.text(
            info, x: margin, y: y, pixelSize: Int(unit * 0.035), color: SceneStyle.dimText, maxWidth: maxWidth)
        y += Float(infoSize.height) + unit * 0.05
        guard let newest = messages.first else {
            canvas.text(
                "Waiting for messages", x: margin, y: y, pixelSize: Int(unit * 0.05), color: SceneStyle.dimText)
            return
        }
        let big = canvas.text(
            newest.text, x: margin, y: y, pixelSize: Int(unit * 0.11), color: ScreenPalette.text, maxWidth: maxWidth)
        y += Float(big.height) + unit * 0.01
        canvas.text(
            SceneStyle.clock(newest.receivedAt.timeIntervalSince1970), x: margin, y: y, pixelSize: Int(unit * 0.035),
            color: SceneStyle.dimText)
        y += unit * 0.07
        for message in messages.dropFirst() {
            guard y + unit * 0.05 < Float(height) else { break }
            let line = "\(SceneStyle.clock(message.receivedAt.timeIntervalSince1970))  \(message.text)"
            let size = canvas.text(
                line, x: margin, y: y, pixelSize: Int(unit * 0.045), color: ScreenPalette.text, maxWidth: maxWidth)
            y += Float(size.height) + unit * 0.015
        }
    }

    /// `card`: one card of content, large, on a light panel.
    static func drawCard(
        on canvas: Canvas, geometry: SurfaceGeometry, summary: ScreenSummary, background: RGBColor, card: Card
    ) {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: background)
        let unit = max(min(height, width * 9 / 16), 90)
        let panel = Rect(x: 0, y: 0, width: width, height: height).inset(by: unit * 0.06)
        canvas.fill(x: panel.x, y: panel.y, width: panel.width, height: panel.height, color: SceneStyle.card)
        let inner = panel.inset(by: unit * 0.05)
        canvas.text(
            "#\(card.id) · \(summary.title)", x: inner.x, y: inner.y, pixelSize: Int(unit * 0.035),
            color: SceneStyle.cardText)
        canvas.text(
            card.text, x: inner.x, y: inner.y + unit * 0.08, pixelSize: Int(unit * 0.09), color: SceneStyle.cardText,
            maxWidth: Int(inner.width))
    }

    /// `mirror`: the controller UI's texture, aspect ratio kept, letterboxed in black.
    static func drawMirror(on canvas: Canvas, geometry: SurfaceGeometry, target: MirrorTexture) {
        canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: SceneStyle.black)
        guard target.width > 0, target.height > 0 else { return }
        let bounds = Rect(x: 0, y: 0, width: Float(geometry.bufferWidth), height: Float(geometry.bufferHeight))
        canvas.drawTexture(target, in: bounds.fitting(aspect: Float(target.width) / Float(target.height)))
    }

    /// `blank`: black.
    static func drawBlank(on canvas: Canvas, geometry: SurfaceGeometry) {
        canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: SceneStyle.black)
    }
}
