/// One window (view) as sway reports it in `swaymsg -t get_tree`.
public struct WindowInfo: Sendable, Equatable, CustomStringConvertible {
    /// sway's container ID, usable in criteria as `[con_id=…]`.
    public var id: Int
    /// The Wayland `app_id` (nil for Xwayland windows, which the harness disables).
    public var appID: String?
    /// The window title.
    public var title: String?
    /// The output whose workspace holds the window.
    public var output: String
    public var workspace: String?
    /// The container's rectangle in global logical coordinates (content plus border, which is none by default).
    public var rect: CompositorRect
    /// The client's process ID as sway sees it.
    public var pid: Int32?
    public var isFloating: Bool
    public var isFocused: Bool
    public var isFullscreen: Bool
    /// Whether sway considers it visible (on a visible workspace).
    public var isVisible: Bool
    /// Whether it keeps the outputs from idling now (its client's idle inhibitor, while it is visible).
    public var inhibitsIdle = false

    public var description: String {
        "\(appID ?? "?") \"\(title ?? "")\" on \(output) at \(rect)\(isFullscreen ? " fullscreen" : "")"
    }
}
