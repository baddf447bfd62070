internal import COnDemandLibraries
internal import CWebEngine
import Logging

/// WPE WebKit in this process, opened and started with the first web view and kept until the process ends (WebKit
/// cannot be shut down and started again in one process). Until then its libraries are not even loaded
/// (`COnDemandLibraries`, `on_demand_web_engine`).
///
/// **How frames travel.** wpebackend-fdo runs a small Wayland server inside this process; each web process draws
/// into buffers of that server, and the server hands each finished frame to us. It can hand over an `EGLImage`
/// (`wpe_fdo_initialize_for_egl_display`, which needs `EGL_WL_bind_wayland_display` on our EGL display so the web
/// process's buffers can be imported) or the frame's `wl_shm` buffer (`wpe_fdo_initialize_shm`). Mesa's llvmpipe,
/// the only driver on machines without a GPU, offers no `EGL_WL_bind_wayland_display` (the engine logs what the
/// display offers), so the web process renders in software into shared memory either way: Multiscreen uses the shm
/// export and copies each frame into a GL texture (one `glTexImage2D`/`glTexSubImage2D` per frame) and gives the
/// buffer back at once, so no frame is ever held past the upload.
public final class WebEngine {
    /// GLib's main context in the display thread's poll.
    public let mainContext: MainContextPoll
    /// The web context every view is made in: WebKit's default one, or with a memory limit one of ours (the limit
    /// can only be given when a context is made). Kept for the life of the process, like the engine.
    let context: UnsafeMutablePointer<WebKitWebContext>?
    private let logger: Logger

    /// - Parameters:
    ///   - eglExtensions: our EGL display's extension string, logged with the choice it implies.
    ///   - memoryLimitMiB: `[web] memory_limit`: WebKit's memory pressure settings for every web process (the
    ///     limit, and a kill threshold at the limit so a process over it is ended, seen as a crash and reloaded).
    public init(eglExtensions: String, memoryLimitMiB: Int? = nil, logger: Logger) throws(WebContentError) {
        self.logger = logger
        if let failure = multiscreen_open_library(on_demand_web_engine) {
            throw WebContentError.engine("WPE WebKit could not be opened: \(String(cString: failure))")
        }
        mainContext = MainContextPoll()
        guard wpe_loader_init("libWPEBackend-fdo-1.0.so.1") else {
            throw WebContentError.engine("wpe_loader_init could not load libWPEBackend-fdo-1.0.so.1")
        }
        guard wpe_fdo_initialize_shm() else {
            throw WebContentError.engine("wpe_fdo_initialize_shm failed")
        }
        // Made once the engine can start: a context is never freed, and a failed start is tried again later.
        context = memoryLimitMiB.map { multiscreen_web_context_new(guint($0)) }
        if let memoryLimitMiB { logger.info("web views: each web process limited to \(memoryLimitMiB) MiB") }
        let canImport = eglExtensions.split(separator: " ").contains("EGL_WL_bind_wayland_display")
        logger.info(
            "web views: WPE WebKit \(webkit_get_major_version()).\(webkit_get_minor_version()).\(webkit_get_micro_version()), frames through wl_shm (EGL_WL_bind_wayland_display \(canImport ? "offered" : "not offered") by this EGL display)"
        )
    }
}

/// Why a web view could not be made.
public enum WebContentError: Error, CustomStringConvertible, Equatable {
    case engine(String)
    case view(String)

    public var description: String {
        switch self {
        case .engine(let reason): "web engine: \(reason)"
        case .view(let reason): "web view: \(reason)"
        }
    }
}
