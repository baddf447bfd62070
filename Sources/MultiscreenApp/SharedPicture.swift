import Outputs

/// What an external screen's frame shows, when it is a picture another screen can show as it is: the content and
/// every input of its drawing. Screens whose pictures are equal are drawn once, by one of them, into a shared frame
/// that each of the others attaches to its own surface (``FrameRoute/sharedIdentical``).
///
/// Only contents whose drawing reads nothing of the screen but its size, scale and background have a picture:
/// messages, a card, a slide, blank. A screen that shows its own name or output (the theme's `name`, `info`), the
/// phone remote's offer, an identification overlay, a mirror, a page or media has none and draws its own frame.
struct SharedPicture: Hashable {
    enum Content: Hashable {
        /// The messages listed, newest first, by id (an id's text never changes).
        case messages([UInt64])
        case card(String)
        case slide(String)
        case blank
    }

    let content: Content
    /// Buffer size, scale and viewport: equal geometry, equal pixels.
    let geometry: SurfaceGeometry
    /// The screen's own background (the theme's, when set, is the same for every screen).
    let background: RGBColor
}
