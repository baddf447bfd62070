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
    /// Starts a frame of an external screen's content on the theme's background: the size unit every text and margin
    /// is measured in (the height of a 16:9 area that fits, at least 90 pixels), and the area the content goes in.
    private static func beginContent(on canvas: Canvas, geometry: SurfaceGeometry, output: OutputInfo, look: Look)
        -> (unit: Float, area: Rect)
    {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        canvas.begin(width: geometry.bufferWidth, height: geometry.bufferHeight, background: look.background)
        let unit = max(min(height, width * 9 / 16), 90)
        return (unit, contentArea(on: canvas, width: width, height: height, unit: unit, output: output, look: look))
    }

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
    /// - Parameter reserved: a panel drawn over the screen afterwards (the phone remote's offer): the messages keep
    ///   out of the column it stands in, so no text is ever hidden under it.
    static func drawMessages(
        on canvas: Canvas, geometry: SurfaceGeometry, output: OutputInfo, look: Look, messages: [LoggedMessage],
        reserving reserved: Rect? = nil
    ) {
        let width = Float(geometry.bufferWidth)
        let content = beginContent(on: canvas, geometry: geometry, output: output, look: look)
        let unit = content.unit
        var area = content.area
        if let reserved {
            let gap = (unit * 0.03).rounded()
            if reserved.x + reserved.width / 2 > width / 2 {
                area.width = max(min(area.width, reserved.x - gap - area.x), 0)
            } else {
                let left = max(area.x, reserved.x + reserved.width + gap)
                area = Rect(x: left, y: area.y, width: max(area.x + area.width - left, 0), height: area.height)
            }
        }
        guard let newest = messages.first, area.height > 0, area.width > 0 else { return }
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

    /// A playlist's text slide: its words set as the newest message is, without a time, filling the content area.
    static func drawSlide(on canvas: Canvas, geometry: SurfaceGeometry, output: OutputInfo, look: Look, text: String) {
        let (unit, area) = beginContent(on: canvas, geometry: geometry, output: output, look: look)
        guard area.height > 0, area.width > 0 else { return }
        canvas.text(
            text, x: area.x, y: area.y, style: look.style(unit * 0.11, look.text),
            box: TextBox(maxWidth: Int(area.width), maxHeight: Int(area.height)))
    }

    /// `card`: one card of content, large, on a light panel, ellipsised within it.
    static func drawCard(on canvas: Canvas, geometry: SurfaceGeometry, output: OutputInfo, look: Look, card: Card) {
        let (unit, area) = beginContent(on: canvas, geometry: geometry, output: output, look: look)
        let panel = area.inset(by: unit * 0.01)
        guard panel.width > 0, panel.height > 0 else { return }
        canvas.fill(x: panel.x, y: panel.y, width: panel.width, height: panel.height, color: SceneStyle.card)
        let inner = panel.inset(by: unit * 0.05)
        guard inner.width > 0, inner.height > 0 else { return }
        canvas.text(
            card.text, x: inner.x, y: inner.y, style: look.style(unit * 0.09, SceneStyle.cardText),
            box: TextBox(maxWidth: Int(inner.width), maxHeight: Int(inner.height)))
    }

    /// Where the phone remote's offer panel stands on a buffer of this size, nil when it does not fit (then it is
    /// not drawn): one place for drawing it and for keeping the messages out of its way.
    static func remoteOfferFrame(
        geometry: SurfaceGeometry, look: Look, offer: RemoteOffer, code: QRCode?, corner: ScreenCorner
    ) -> Rect? {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        let layout = OfferLayout(geometry: geometry, look: look)
        let panelWidth: Float
        let panelHeight: Float
        if offer.locked {
            panelWidth = (layout.unit * 0.6).rounded()
            panelHeight = (layout.unit * 0.12).rounded()
        } else {
            guard let code else { return nil }
            let extent = layout.qrExtent(code)
            panelWidth = max(extent, (layout.unit * 0.45).rounded())
            panelHeight = extent + layout.codeHeight + layout.linkHeight + (layout.unit * 0.02).rounded()
        }
        guard panelWidth + layout.margin <= width, panelHeight + layout.margin <= height else { return nil }
        let x = (corner.isRight ? width - layout.margin - panelWidth : layout.margin).rounded()
        let y = (corner.isBottom ? height - layout.margin - panelHeight : layout.margin).rounded()
        return Rect(x: x, y: y, width: panelWidth, height: panelHeight)
    }

    /// The offer panel's measures for one buffer size and theme.
    private struct OfferLayout {
        let unit: Float
        let margin: Float
        let codeStyle: TextStyle
        let linkStyle: TextStyle
        static let ink = RGBColor(hex: 0x11_11_11)

        init(geometry: SurfaceGeometry, look: Look) {
            unit = max(min(Float(geometry.bufferHeight), Float(geometry.bufferWidth) * 9 / 16), 90)
            margin = (unit * 0.04).rounded()
            codeStyle = look.style(unit * 0.05, Self.ink, alignment: .center)
            linkStyle = look.style(unit * 0.022, Self.ink, alignment: .center)
        }

        var codeHeight: Float { Float(codeStyle.pixelSize) * 1.4 }
        var linkHeight: Float { Float(linkStyle.pixelSize) * 1.5 }
        func modulePixels(_ code: QRCode) -> Int { max(Int((unit * 0.4) / Float(code.size + 2 * QRCode.quietZone)), 1) }
        func qrExtent(_ code: QRCode) -> Float { Float((code.size + 2 * QRCode.quietZone) * modulePixels(code)) }
    }

    /// The phone remote's invitation, in `corner` on a white panel: the QR code (integer pixels per module, its
    /// quiet zone included), then the short code and the address (without the token) under it. Locked code entry
    /// shows a notice instead, in the same corner.
    /// - Parameter frame: where the panel stands (``remoteOfferFrame(geometry:look:offer:code:corner:)``, which the
    ///   caller has already computed to lay the messages out around it).
    static func drawRemoteOffer(
        on canvas: Canvas, geometry: SurfaceGeometry, look: Look, offer: RemoteOffer, code: QRCode?, frame: Rect
    ) {
        let layout = OfferLayout(geometry: geometry, look: look)
        if offer.locked {
            canvas.fill(x: frame.x, y: frame.y, width: frame.width, height: frame.height, color: SceneStyle.card)
            canvas.text(
                "Too many wrong codes: try again in a minute", x: frame.x + layout.margin / 2,
                y: frame.y + layout.margin / 2,
                style: look.style(layout.unit * 0.03, OfferLayout.ink, alignment: .center),
                box: TextBox(
                    maxWidth: Int(frame.width - layout.margin), maxHeight: Int(frame.height - layout.margin)))
            return
        }
        guard let code else { return }
        let extent = layout.qrExtent(code)
        canvas.fill(x: frame.x, y: frame.y, width: frame.width, height: frame.height, color: RGBColor(hex: 0xFF_FF_FF))
        canvas.drawQRCode(
            code, x: frame.x + ((frame.width - extent) / 2).rounded(), y: frame.y,
            modulePixels: layout.modulePixels(code))
        let grouped = offer.code.count == 8 ? "\(offer.code.prefix(4)) \(offer.code.dropFirst(4))" : offer.code
        canvas.text(
            grouped, x: frame.x, y: frame.y + extent, style: layout.codeStyle,
            box: .singleLine(maxWidth: Int(frame.width)))
        // The address without the token: what someone types, with the short code, instead of scanning.
        let address = offer.link.split(separator: "?", maxSplits: 1).first.map(String.init) ?? offer.link
        canvas.text(
            address, x: frame.x, y: frame.y + extent + layout.codeHeight, style: layout.linkStyle,
            box: .singleLine(maxWidth: Int(frame.width)))
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
