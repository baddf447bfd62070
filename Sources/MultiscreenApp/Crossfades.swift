import SystemCalls
import Wayland

/// The crossfades under way, one per screen at most: what a screen showed before the clock switched it to an item
/// that crossfades in, on a ``FadeLayer`` above everything the window shows, more transparent at each of the
/// compositor's frame callbacks until it is gone. What is under it is the new item, shown as any item is: nothing
/// under a fade is drawn twice, and a fade costs a premultiply of one frame per refresh for its second.
///
/// Owns the fade layers: made by ``begin(on:picture:width:height:seconds:globals:)``, destroyed when their fade ends,
/// when their screen goes (``stack(_:above:)`` sees it gone), or by ``tearDownAll()`` before the windows go.
final class Crossfades {
    private struct Fade {
        let layer: FadeLayer
        /// `CLOCK_MONOTONIC` ns when it began.
        let began: UInt64
        let seconds: Double
    }

    private var fades: [UInt32: Fade] = [:]

    /// Starts a fade on `screen` out of `picture` (its frame as it was: XRGB8888, `width` × 4 bytes a row), over
    /// `seconds`, replacing one under way there. The first step shows the picture whole, and the window commits at
    /// once so that the layer is in place before anything under it changes.
    func begin(
        on screen: Screen, picture: [UInt8], width: Int, height: Int, seconds: Double, globals: WaylandGlobals
    ) {
        let name = screen.output.registryName
        end(name)
        guard let window = screen.window, let geometry = screen.geometry,
            let layer = FadeLayer(
                globals: globals, window: window, picture: picture, width: Int32(width), height: Int32(height),
                logicalWidth: geometry.logicalWidth, logicalHeight: geometry.logicalHeight)
        else { return }
        fades[name] = Fade(layer: layer, began: MonotonicClock.nanoseconds(), seconds: seconds)
        step(name)
        window.commit()
    }

    /// Keeps each fade above its screen's media layer (one made after the fade would be stacked over it: the window's
    /// next commit, in this render pass, applies the order), and ends the fades of screens that went. Render pass,
    /// after the media layers are in place.
    func stack(_ screens: [Screen], above layer: (Screen) -> MediaLayer?) {
        // Every render pass calls this; with no fade under way (nearly always) it costs nothing.
        guard !fades.isEmpty else { return }
        let present = Dictionary(uniqueKeysWithValues: screens.map { ($0.output.registryName, $0) })
        for name in fades.keys {
            guard let screen = present[name], screen.window != nil else {
                end(name)
                continue
            }
            if let media = layer(screen) { fades[name]?.layer.stack(above: media) }
        }
    }

    /// Destroys every fade (at exit, before the windows).
    func tearDownAll() {
        for name in fades.keys { end(name) }
    }

    /// Shows the fade's next step at the opacity its time says, the next one at the compositor's next frame; past its
    /// time, ends it.
    private func step(_ name: UInt32) {
        guard let fade = fades[name] else { return }
        let elapsed = Double(MonotonicClock.nanoseconds() - fade.began) / 1e9
        let opacity = 1 - elapsed / fade.seconds
        guard opacity > 0 else { return end(name) }
        fade.layer.show(opacity: opacity) { [unowned self] in step(name) }
    }

    private func end(_ name: UInt32) {
        fades.removeValue(forKey: name)?.layer.destroy()
    }
}
