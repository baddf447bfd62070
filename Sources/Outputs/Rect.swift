/// An axis-aligned rectangle in buffer pixels, origin top-left.
public struct Rect: Equatable, Sendable {
    public var x: Float
    public var y: Float
    public var width: Float
    public var height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public func contains(x px: Float, y py: Float) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }

    /// This rectangle shrunk by `amount` on every side.
    public func inset(by amount: Float) -> Rect {
        Rect(x: x + amount, y: y + amount, width: max(width - 2 * amount, 0), height: max(height - 2 * amount, 0))
    }

    /// The largest rectangle of `aspect` (width / height) centred in this one: letterboxing.
    public func fitting(aspect: Float) -> Rect {
        guard aspect > 0, width > 0, height > 0 else { return self }
        if width / height > aspect {
            let w = height * aspect
            return Rect(x: x + (width - w) / 2, y: y, width: w, height: height)
        }
        let h = width / aspect
        return Rect(x: x, y: y + (height - h) / 2, width: width, height: h)
    }
}
