/// A rectangle in a compositor's global (logical) coordinate space.
public struct CompositorRect: Sendable, Equatable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}

/// One output as the compositor reports it (`swaymsg -t get_outputs`, or `wayland-info` for weston).
///
/// Named `CompositorOutput` rather than `OutputInfo` because `Screens.OutputInfo` (the client's view of a
/// `wl_output`) is imported next to it in the integration tests; comparing the two views is what those tests do.
public struct CompositorOutput: Sendable, Equatable, CustomStringConvertible {
    /// A video mode in physical pixels.
    public struct Mode: Sendable, Equatable, Codable {
        public var width: Int
        public var height: Int
        /// Refresh rate in mHz; 0 when unknown (nested sway's outputs).
        public var refresh: Int

        public init(width: Int, height: Int, refresh: Int) {
            self.width = width
            self.height = height
            self.refresh = refresh
        }
    }

    /// Connector name: `HEADLESS-1`, `WL-2`; weston's `xdg_output` name (`headless`).
    public var name: String
    /// The output's human-readable description, when the compositor reports one (sway 1.7's IPC does not).
    public var outputDescription: String?
    public var make: String
    public var model: String
    public var serial: String
    public var active: Bool
    /// The current mode; zero-sized for an inactive output.
    public var mode: Mode
    public var scale: Double
    /// `normal`, `90`, `180`, `270`, `flipped`, `flipped-90`, …
    public var transform: String
    /// Position and logical size in the global space (mode / scale, rotated).
    public var rect: CompositorRect
    public var focused: Bool
    public var currentWorkspace: String?
    /// Whether the output is powered (sway's `dpms`): false while a client or `output … dpms off` turned it off.
    public var isPoweredOn: Bool

    public init(
        name: String, outputDescription: String? = nil, make: String = "", model: String = "", serial: String = "",
        active: Bool = true, mode: Mode, scale: Double = 1, transform: String = "normal", rect: CompositorRect,
        focused: Bool = false, currentWorkspace: String? = nil, isPoweredOn: Bool = true
    ) {
        self.name = name
        self.outputDescription = outputDescription
        self.make = make
        self.model = model
        self.serial = serial
        self.active = active
        self.mode = mode
        self.scale = scale
        self.transform = transform
        self.rect = rect
        self.focused = focused
        self.currentWorkspace = currentWorkspace
        self.isPoweredOn = isPoweredOn
    }

    public var description: String {
        "\(name) \(mode.width)×\(mode.height)@\(mode.refresh)mHz scale \(scale) \(transform) at \(rect)"
    }
}
