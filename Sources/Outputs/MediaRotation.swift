/// A clockwise quarter turn applied to a screen's picture, for a panel mounted on its side where the compositor does
/// not rotate the output (cage has no output transform). Applied by the compositor (`wl_surface.set_buffer_transform`),
/// so the pixels are never turned in memory.
public enum MediaRotation: Int, Codable, Sendable, CaseIterable {
    case none = 0
    case quarter = 90
    case half = 180
    case threeQuarters = 270

    /// Whether width and height trade places.
    public var swapsAxes: Bool { self == .quarter || self == .threeQuarters }
}
