import Assets
import FrameTiming
import Outputs
import WebContent

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
        /// Photodiode / camera mode: a patch on every screen that flips with every frame showing new messages.
        public var flash: FlashPatch?
        /// When a screen draws what changed (``FramePacing``).
        public var pacing = FramePacing.frame
        /// How mirrors get the controller's picture: `auto` (shared frames on a software renderer), `shared`,
        /// `copy` (see ``MirrorPath``).
        public var mirror = MirrorPreferenceName.auto
        /// The `[web]` section: what pages may call per origin, the web processes' memory limit.
        public var web = WebConfig()
        /// The `[assets]` section: where playlist assets by URL are cached and how much they may take.
        public var assets = AssetConfig()
        /// Where the phone remote's QR code goes and which screens show it (`[remote]` `qr_position`, `qr_screens`).
        public var remoteOffer = RemoteOfferPlacement()

        public init(display: String? = nil) { self.display = display }
    }
}

/// `multiscreen run --mirror`: how mirrors should get the controller's picture (``MirrorPath``).
public enum MirrorPreferenceName: String, Sendable, CaseIterable {
    /// Shared frames on a software renderer (where every drawn pixel costs CPU), the texture copy on a GPU.
    case auto
    /// Shared frames whenever the compositor allows them, GPU or not.
    case shared
    /// Always the texture copy.
    case copy
}
