extension Application {
    /// What `multiscreen run` can choose.
    public struct Options: Sendable {
        /// The Wayland display name or socket path; nil: `$WAYLAND_DISPLAY`.
        public var display: String?
        public var appID = "dev.multiscreen.Multiscreen"
        /// Seconds before a window the compositor closed is opened again.
        public var reopenDelay = 1.0
        /// The role rules (`config.toml`); nil: `$XDG_CONFIG_HOME/multiscreen/config.toml`. Named explicitly, it
        /// must exist.
        public var configPath: String?
        /// The restored state (`state.json`); nil: `$XDG_STATE_HOME/multiscreen/state.json`.
        public var statePath: String?

        public init(display: String? = nil) { self.display = display }
    }
}
