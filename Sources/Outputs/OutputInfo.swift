/// Everything Multiscreen knows about one `wl_output`, as of its last `done` event.
///
/// Values arrive piecemeal (`wl_output.geometry`, `.mode`, `.scale`, `.name`, `xdg_output.logical_*`…) and are
/// only meaningful together: "This event is sent after all other properties have been sent after binding to the
/// output object and after any other property changes done after that" (wl_output.done, wayland.xml).
/// ``OutputTracker`` collects them in a pending copy and publishes a whole `OutputInfo` at `done`.
public struct OutputInfo: Equatable, Sendable, Codable {
    /// The registry name of the `wl_output` global: stable for the life of the global, never reused while bound.
    public var registryName: UInt32
    /// Connector name such as `HEADLESS-1` or `DP-2` (`wl_output.name` v4, or `xdg_output.name`).
    public var name: String?
    public var description: String?
    public var make: String = ""
    public var model: String = ""
    /// Current mode in physical pixels, before transform.
    public var modeWidth: Int32 = 0
    public var modeHeight: Int32 = 0
    /// Refresh rate in mHz (0 when the compositor does not know, e.g. some virtual outputs).
    public var refreshMilliHertz: Int32 = 0
    /// Integer buffer scale (`wl_output.scale`), at least 1.
    public var scale: Int32 = 1
    /// `wl_output.transform` value (0 normal, 1 = 90°, … 7 flipped-270).
    public var transform: Int32 = 0
    public var physicalWidthMM: Int32 = 0
    public var physicalHeightMM: Int32 = 0
    /// Position and size in the compositor's global (logical) space, from `xdg_output` when offered.
    public var logicalX: Int32 = 0
    public var logicalY: Int32 = 0
    public var logicalWidth: Int32 = 0
    public var logicalHeight: Int32 = 0

    public init(registryName: UInt32) {
        self.registryName = registryName
    }

    /// The name to show and match on: the connector name, else the description, else the registry name.
    public var displayName: String {
        name ?? description ?? "output-\(registryName)"
    }

    /// Whether the transform swaps width and height (90° and 270°, flipped or not).
    public var isRotated: Bool { transform % 2 == 1 }

    /// The output's size in surface-local (logical) coordinates: what a fullscreen surface covers.
    ///
    /// Prefers the compositor's own logical size (`xdg_output.logical_size`, which already accounts for
    /// fractional scaling), else derives it from the mode, transform and integer scale.
    public var logicalSize: (width: Int32, height: Int32) {
        if logicalWidth > 0 && logicalHeight > 0 { return (logicalWidth, logicalHeight) }
        let (w, h) = isRotated ? (modeHeight, modeWidth) : (modeWidth, modeHeight)
        let s = max(scale, 1)
        return (w / s, h / s)
    }

    /// Refresh rate in Hz with three decimals, e.g. "60.000 Hz", or "unknown refresh".
    public var refreshText: String {
        guard refreshMilliHertz > 0 else { return "unknown refresh" }
        let thousandths = String(refreshMilliHertz % 1000)
        return "\(refreshMilliHertz / 1000).\(String(repeating: "0", count: 3 - thousandths.count))\(thousandths) Hz"
    }

    /// "640×360 @ 60.000 Hz"
    public var modeText: String { "\(modeWidth)×\(modeHeight) @ \(refreshText)" }
}
