import Outputs
import Product
import Rendering
import TextRendering

/// What `screen.identify` draws over a screen's content: a panel in the middle with the screen's connector name,
/// large enough to read across a room, and under it its make and model, its mode and its role.
enum IdentityScene {
    static func draw(
        _ identity: ProductController.ScreenIdentity, on canvas: Canvas, geometry: SurfaceGeometry,
        look: ExternalScene.Look
    ) {
        let width = Float(geometry.bufferWidth)
        let height = Float(geometry.bufferHeight)
        let unit = max(min(height, width * 9 / 16), 90)
        let panel = Rect(
            x: (width * 0.1).rounded(), y: ((height - unit * 0.5) / 2).rounded(), width: (width * 0.8).rounded(),
            height: (unit * 0.5).rounded())
        canvas.fill(x: panel.x, y: panel.y, width: panel.width, height: panel.height, color: SceneStyle.card)
        let inner = panel.inset(by: unit * 0.04)
        guard inner.width > 0, inner.height > 0 else { return }
        let nameHeight = unit * 0.16
        canvas.text(
            identity.name, x: inner.x, y: inner.y, style: look.style(unit * 0.13, SceneStyle.cardText),
            box: TextBox(maxWidth: Int(inner.width), maxHeight: Int(nameHeight)))
        canvas.text(
            identity.details.joined(separator: "\n"), x: inner.x, y: inner.y + nameHeight,
            style: look.style(unit * 0.045, SceneStyle.cardText),
            box: TextBox(maxWidth: Int(inner.width), maxHeight: Int(max(inner.height - nameHeight, 1))))
    }
}
