import Foundation
import Outputs
import Product
import Rendering
import Screens
import TextRendering

/// What an external screen shows, by content mode: content only, no debug chrome. The config's `[theme]` decides
/// fonts, colours, alignment and whether times, the screen's name and the installer overlay (`info`) show.
///
/// Every text has a box: the newest message gets at most 60% of the height when older ones are listed (all of it
/// otherwise) and ends in "…" when it does not fit; older messages take one line each, as many as fit.
enum ExternalScene {
    /// A theme resolved for one screen.
    struct Look {
        var theme: ScreenTheme
        var background: RGBColor
        var text: RGBColor
        var secondary: RGBColor

        init(theme: ScreenTheme, screenBackground: RGBColor) {
            self.theme = theme
            background = theme.background ?? screenBackground
            text = theme.text ?? ScreenPalette.text
            secondary = theme.secondary ?? SceneStyle.dimText
        }

        func style(_ size: Float, _ color: RGBColor, alignment: TextStyle.Alignment? = nil) -> TextStyle {
            TextStyle(
                pixelSize: max(Int(size * Float(theme.fontScale)), 6), color: color.textColor, family: theme.font,
                alignment: alignment ?? TextStyle.Alignment(rawValue: theme.alignment.rawValue) ?? .start)
        }
    }

    /// The installer overlay's text: "HEADLESS-2 · 1280×720 @ 60.000 Hz · scale 1".
    static func infoText(_ output: OutputInfo) -> String {
        "\(output.displayName) · \(output.modeText) · scale \(output.scale)"
    }

    /// The part of the screen content goes in, after the margin and what the theme puts on top (the info overlay,
    /// the screen's name).
    private static func contentArea(
        on canvas: Canvas, width: Float, height: Float, unit: Float, output: OutputInfo, look: Look
    ) -> Rect {
        let margin = (unit * 0.06).rounded()
        var area = Rect(x: margin, y: margin, width: width - 2 * margin, height: height - 2 * margin)
        if look.theme.showsInfo {
            let size = unit * 0.035
            let drawn = canvas.text(
                infoText(output), x: area.x, y: area.y, style: look.style(size, look.secondary, alignment: .start),
                box: .singleLine(maxWidth: Int(area.width)))
            let used = Float(drawn.height) + unit * 0.02
            area = Rect(x: area.x, y: area.y + used, width: area.width, height: max(area.height - used, 0))
        }
        if look.theme.showsName {
            let drawn = canvas.text(
                output.displayName, x: area.x, y: area.y, style: look.style(unit * 0.05, look.secondary),
                box: .singleLine(maxWidth: Int(area.width)))
            let used = Float(drawn.height) + unit * 0.03
            area = Rect(x: area.x, y: area.y + used, width: area.width, height: max(area.height - used, 0))
        }
        return area
    }

    /// `messages`: the newest message large with its time, then older ones a line each, as many as fit.
    static func drawMessages(
        on canvas: Canvas, geometry: SurfaceGeometry, output: OutputInfo, look: Look, messages: [LoggedMessage]
    ) {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: look.background)
        let unit = max(min(height, width * 9 / 16), 90)
        let area = contentArea(on: canvas, width: width, height: height, unit: unit, output: output, look: look)
        guard let newest = messages.first, area.height > 0 else { return }
        let bottom = area.y + area.height
        let timeStyle = look.style(unit * 0.04, look.secondary)
        let timeLine = look.theme.showsTime ? Float(timeStyle.pixelSize) * 1.5 : 0
        let share: Float = messages.count > 1 ? 0.6 : 1
        let newestBox = TextBox(
            maxWidth: Int(area.width), maxHeight: max(Int(area.height * share - timeLine), timeStyle.pixelSize))
        let drawn = canvas.text(
            newest.text, x: area.x, y: area.y, style: look.style(unit * 0.11, look.text), box: newestBox)
        var y = area.y + Float(drawn.height) + unit * 0.01
        if look.theme.showsTime, y + Float(timeStyle.pixelSize) <= bottom {
            // The time goes on the side the message starts from: the right for right-to-left text.
            var style = timeStyle
            if look.theme.alignment == .start, TextRasterizer.isRightToLeft(newest.text) { style.alignment = .end }
            canvas.text(
                SceneStyle.clock(newest.receivedAt.timeIntervalSince1970), x: area.x, y: y, style: style,
                box: .singleLine(maxWidth: Int(area.width)))
            y += timeLine
        }
        y += unit * 0.03
        let lineStyle = look.style(unit * 0.045, look.text)
        let lineTimeStyle = look.style(unit * 0.045, look.secondary, alignment: .start)
        let lineHeight = Float(lineStyle.pixelSize) * 1.45
        for message in messages.dropFirst() {
            guard y + lineHeight <= bottom else { break }
            var x = area.x
            var time: (text: String, box: TextBox, extent: Canvas.TextExtent)?
            if look.theme.showsTime {
                let text = SceneStyle.clock(message.receivedAt.timeIntervalSince1970)
                let box = TextBox.singleLine(maxWidth: Int(area.width / 3))
                let extent = canvas.extent(of: text, style: lineTimeStyle, box: box)
                time = (text, box, extent)
                x += Float(extent.width) + unit * 0.03
            }
            // Its own block, so that the time stays in place whatever the message's direction; both on one
            // baseline, whichever font (a CJK or emoji fallback is taller) the message uses.
            let box = TextBox.singleLine(maxWidth: Int(area.x + area.width - x))
            let extent = canvas.extent(of: message.text, style: lineStyle, box: box)
            let baseline = max(extent.baseline, time?.extent.baseline ?? 0)
            if let time {
                canvas.text(
                    time.text, x: area.x, y: y + Float(baseline - time.extent.baseline), style: lineTimeStyle,
                    box: time.box)
            }
            canvas.text(message.text, x: x, y: y + Float(baseline - extent.baseline), style: lineStyle, box: box)
            y += lineHeight
        }
    }

    /// `card`: one card of content, large, on a light panel, ellipsised within it.
    static func drawCard(on canvas: Canvas, geometry: SurfaceGeometry, output: OutputInfo, look: Look, card: Card) {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: look.background)
        let unit = max(min(height, width * 9 / 16), 90)
        let area = contentArea(on: canvas, width: width, height: height, unit: unit, output: output, look: look)
        let panel = area.inset(by: unit * 0.01)
        guard panel.width > 0, panel.height > 0 else { return }
        canvas.fill(x: panel.x, y: panel.y, width: panel.width, height: panel.height, color: SceneStyle.card)
        let inner = panel.inset(by: unit * 0.05)
        guard inner.width > 0, inner.height > 0 else { return }
        canvas.text(
            card.text, x: inner.x, y: inner.y, style: look.style(unit * 0.09, SceneStyle.cardText),
            box: TextBox(maxWidth: Int(inner.width), maxHeight: Int(inner.height)))
    }

    /// The phone remote's invitation, in `corner` on a white panel: the QR code (integer pixels per module, its
    /// quiet zone included), then the short code and the address (without the token) under it. Locked code entry
    /// shows a notice instead, in the same corner.
    static func drawRemoteOffer(
        on canvas: Canvas, geometry: SurfaceGeometry, look: Look, offer: RemoteOffer, code: QRCode?,
        corner: ScreenCorner
    ) {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        let unit = max(min(height, width * 9 / 16), 90)
        let margin = (unit * 0.04).rounded()
        let ink = RGBColor(hex: 0x11_11_11)
        let codeStyle = look.style(unit * 0.05, ink, alignment: .center)
        let linkStyle = look.style(unit * 0.022, ink, alignment: .center)
        if offer.locked {
            let panelWidth = (unit * 0.6).rounded()
            let panelHeight = (unit * 0.12).rounded()
            let x = corner.isRight ? width - margin - panelWidth : margin
            let y = corner.isBottom ? height - margin - panelHeight : margin
            canvas.fill(x: x, y: y, width: panelWidth, height: panelHeight, color: SceneStyle.card)
            canvas.text(
                "Too many wrong codes: try again in a minute", x: x + margin / 2, y: y + margin / 2,
                style: look.style(unit * 0.03, ink, alignment: .center),
                box: TextBox(maxWidth: Int(panelWidth - margin), maxHeight: Int(panelHeight - margin)))
            return
        }
        guard let code else { return }
        let side = code.size + 2 * QRCode.quietZone
        let modulePixels = max(Int((unit * 0.4) / Float(side)), 1)
        let qrExtent = Float(side * modulePixels)
        let codeHeight = Float(codeStyle.pixelSize) * 1.4
        let linkHeight = Float(linkStyle.pixelSize) * 1.5
        let panelWidth = max(qrExtent, (unit * 0.45).rounded())
        let panelHeight = qrExtent + codeHeight + linkHeight + (unit * 0.02).rounded()
        let x = (corner.isRight ? width - margin - panelWidth : margin).rounded()
        let y = (corner.isBottom ? height - margin - panelHeight : margin).rounded()
        guard panelWidth + margin <= width, panelHeight + margin <= height else { return }
        canvas.fill(x: x, y: y, width: panelWidth, height: panelHeight, color: RGBColor(hex: 0xFF_FF_FF))
        canvas.drawQRCode(code, x: x + ((panelWidth - qrExtent) / 2).rounded(), y: y, modulePixels: modulePixels)
        let grouped = offer.code.count == 8 ? "\(offer.code.prefix(4)) \(offer.code.dropFirst(4))" : offer.code
        canvas.text(
            grouped, x: x, y: y + qrExtent, style: codeStyle, box: .singleLine(maxWidth: Int(panelWidth)))
        // The address without the token: what someone types, with the short code, instead of scanning.
        let address = offer.link.split(separator: "?", maxSplits: 1).first.map(String.init) ?? offer.link
        canvas.text(
            address, x: x, y: y + qrExtent + codeHeight, style: linkStyle,
            box: .singleLine(maxWidth: Int(panelWidth)))
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
