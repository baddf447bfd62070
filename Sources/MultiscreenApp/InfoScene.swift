import Rendering
import Screens

/// What each screen shows for now: who it is (output name, description, mode, scale, index) on its own colour.
///
/// Sizes derive from the buffer height, so the layout scales with the output and its scale factor.
enum InfoScene {
    static func draw(on canvas: Canvas, geometry: SurfaceGeometry, summary: ScreenSummary, background: RGBColor) {
        let width = geometry.bufferWidth
        let height = geometry.bufferHeight
        canvas.begin(width: width, height: height, background: background)
        let unit = Float(max(min(height, width * 9 / 16), 90))
        let margin = unit * 0.06
        let titleSize = Int(unit * 0.14)
        let lineSize = Int(unit * 0.06)
        let maxWidth = Int(Float(width) - 2 * margin)
        // A bar along the top edge in the text colour: a large, unmistakable area for screenshot checks.
        canvas.fill(x: 0, y: 0, width: Float(width), height: unit * 0.02, color: ScreenPalette.text)
        var y = margin
        let title = canvas.text(
            summary.title, x: margin, y: y, pixelSize: titleSize, color: ScreenPalette.text, maxWidth: maxWidth)
        y += Float(title.height) + unit * 0.04
        for line in summary.lines {
            let size = canvas.text(
                line, x: margin, y: y, pixelSize: lineSize, color: ScreenPalette.text, maxWidth: maxWidth)
            y += Float(max(size.height, lineSize)) + unit * 0.015
        }
    }
}
