/// Where a picture goes on a screen: the part of the picture shown (`source`, whole pixels of the picture turned by its
/// rotation) and where on the screen it is shown (`destination`, the screen's logical coordinates, inside the screen).
/// The compositor scales (`wp_viewport`'s destination); the crop is the buffer's own (a `wl_buffer` over part of the
/// picture's memory, ``bufferCrop(width:height:rotation:)``), because wlroots' software renderer (sway and cage
/// without a GPU) ignores a viewport source's offset.
public struct MediaPlacement: Equatable, Sendable {
    /// The part of the (turned) picture shown, in its pixels.
    public var source: Rect
    /// Where it is shown, in the screen's logical coordinates (whole numbers: a viewport's destination is integral).
    public var destination: Rect

    /// - Parameters:
    ///   - width, height: the picture's size in pixels, before `rotation`.
    ///   - rotation: the quarter turn applied to it.
    ///   - fit: how it fills the screen.
    ///   - screenWidth, screenHeight: the screen's logical size.
    ///   - scale: the screen's pixels per logical unit (what `center` shows one picture pixel per).
    public init(
        width: Int32, height: Int32, rotation: MediaRotation, fit: MediaFit, screenWidth: Int32, screenHeight: Int32,
        scale: Float = 1
    ) {
        let (cw, ch) = rotation.swapsAxes ? (Float(height), Float(width)) : (Float(width), Float(height))
        let (sw, sh) = (Float(screenWidth), Float(screenHeight))
        let whole = Rect(x: 0, y: 0, width: cw, height: ch)
        let screen = Rect(x: 0, y: 0, width: sw, height: sh)
        guard cw > 0, ch > 0, sw > 0, sh > 0 else {
            self.init(source: whole, destination: screen)
            return
        }
        switch fit {
        case .stretch:
            self.init(source: whole, destination: screen)
        case .contain:
            let s = min(sw / cw, sh / ch)
            self.init(source: whole, destination: Self.centred(width: cw * s, height: ch * s, in: screen))
        case .cover:
            let s = max(sw / cw, sh / ch)
            self.init(source: Self.middle(width: sw / s, height: sh / s, of: whole), destination: screen)
        case .center:
            let pixels = max(scale, 0.01)
            // What fits of the picture at one of its pixels per screen pixel, and the screen area that takes.
            let source = Self.middle(width: min(cw, sw * pixels), height: min(ch, sh * pixels), of: whole)
            self.init(
                source: source,
                destination: Self.centred(width: source.width / pixels, height: source.height / pixels, in: screen))
        }
    }

    public init(source: Rect, destination: Rect) {
        self.source = source
        self.destination = destination
    }

    /// ``source`` in the unturned picture's pixels (the buffer's), for a picture of `width`×`height` before
    /// `rotation`: the rectangle whose pixels, turned, are the source.
    public func bufferCrop(width: Int32, height: Int32, rotation: MediaRotation) -> (
        x: Int32, y: Int32, width: Int32, height: Int32
    ) {
        let (u, v, du, dv) = (Int32(source.x), Int32(source.y), Int32(source.width), Int32(source.height))
        switch rotation {
        case .none: return (u, v, du, dv)
        // Turned clockwise: the picture's column x becomes row x, its row y column height - 1 - y.
        case .quarter: return (v, height - u - du, dv, du)
        case .half: return (width - u - du, height - v - dv, du, dv)
        // Turned counter-clockwise: its row y becomes column y, its column x row width - 1 - x.
        case .threeQuarters: return (width - v - dv, u, dv, du)
        }
    }

    /// Whether the picture covers the whole screen (nothing of the background shows).
    public func covers(screenWidth: Int32, screenHeight: Int32) -> Bool {
        destination == Rect(x: 0, y: 0, width: Float(screenWidth), height: Float(screenHeight))
    }

    /// The pixel size a picture of `width`×`height` (before `rotation`) is best decoded at to be shown with `fit` on
    /// a screen of `pixelWidth`×`pixelHeight` pixels: never larger than the picture, and only as large as the screen
    /// needs (`cover` needs the picture to cover both sides, `contain` to fit them). Scaling down while decoding is what
    /// keeps a 50-megapixel photo from ever existing at full size in memory.
    public static func decodeSize(
        width: Int, height: Int, rotation: MediaRotation, fit: MediaFit, pixelWidth: Int, pixelHeight: Int
    ) -> (width: Int, height: Int) {
        guard width > 0, height > 0, pixelWidth > 0, pixelHeight > 0 else { return (width, height) }
        // The screen's size in the picture's own orientation.
        let (tw, th) =
            rotation.swapsAxes ? (Double(pixelHeight), Double(pixelWidth)) : (Double(pixelWidth), Double(pixelHeight))
        let (w, h) = (Double(width), Double(height))
        let s: Double =
            switch fit {
            case .contain: min(tw / w, th / h)
            case .cover: max(tw / w, th / h)
            case .stretch: max(tw / w, th / h)
            case .center: 1
            }
        guard s < 1 else { return (width, height) }
        return (max(Int((w * s).rounded(.up)), 1), max(Int((h * s).rounded(.up)), 1))
    }

    /// The middle `width`×`height` of `whole`, in whole pixels.
    private static func middle(width: Float, height: Float, of whole: Rect) -> Rect {
        let (w, h) = (min(width.rounded(), whole.width), min(height.rounded(), whole.height))
        return Rect(
            x: ((whole.width - w) / 2).rounded(.down), y: ((whole.height - h) / 2).rounded(.down), width: w, height: h)
    }

    private static func centred(width: Float, height: Float, in screen: Rect) -> Rect {
        let (w, h) = (width.rounded(), height.rounded())
        return Rect(
            x: ((screen.width - w) / 2).rounded(.down), y: ((screen.height - h) / 2).rounded(.down), width: w, height: h
        )
    }
}
