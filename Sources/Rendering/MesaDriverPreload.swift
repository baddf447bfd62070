import CLinux
import Foundation
import Glibc

/// Loads Mesa's EGL library and its software driver on a thread of their own, started before `run` parses its
/// arguments and reads its config, so that `eglInitialize` finds them loaded.
///
/// Why: on a machine without a GPU, half of `eglInitialize` (about 15 of 29 ms, on a 2-core machine) is the dynamic
/// loader mapping and relocating `swrast_dri.so` and the LLVM it links, while the second core has nothing to do.
/// Opened with the flags Mesa's own loader uses (`RTLD_NOW | RTLD_GLOBAL`), so Mesa's `dlopen` of the same file (by
/// whichever of its hard-linked names) returns the loaded copy. The dynamic loader's lock orders the two, and holds
/// back the threads the display thread starts meanwhile: the gain is what the display thread does before it needs
/// the lock, about 4 ms. The handles are never closed: Mesa keeps its driver for the life of the process too.
///
/// Only without a GPU (no `/dev/dri/renderD*`): with one, Mesa chooses a driver for the device the compositor uses,
/// which cannot be known before connecting. Where Mesa is not installed, the loads fail and nothing changes.
public final class MesaDriverPreload: Sendable {
    private let done = DispatchSemaphore(value: 0)

    private init() {}

    /// Starts the loading thread; nil (nothing started) on a machine with a GPU.
    public static func start() -> MesaDriverPreload? {
        guard !hasRenderNode() else { return nil }
        let preload = MesaDriverPreload()
        let environment = ProcessInfo.processInfo.environment
        let thread = Thread {
            defer { preload.done.signal() }
            // The name glvnd's vendor file for Mesa gives (Debian, Fedora and Arch alike).
            guard let vendor = dlopen("libEGL_mesa.so.0", RTLD_LAZY) else { return }
            for path in driverCandidates(vendorLibrary: libraryPath(vendor), environment: environment) {
                if dlopen(path, RTLD_NOW | RTLD_GLOBAL) != nil { return }
            }
        }
        thread.name = "mesa preload"
        thread.start()
        return preload
    }

    /// Waits until the thread's loads have returned (at once when they have). Before the process exits: an exit
    /// handler must not run a library's destructors while the thread still runs its constructors.
    public func finish() {
        done.wait()
        done.signal()
    }

    /// Where Mesa looks for `swrast_dri.so`, in its order: each directory of `$LIBGL_DRIVERS_PATH`, else the `dri`
    /// directory beside its EGL library (Mesa's default, `<libdir>/dri`).
    static func driverCandidates(vendorLibrary: String?, environment: [String: String]) -> [String] {
        let directories: [String]
        if let path = environment["LIBGL_DRIVERS_PATH"], !path.isEmpty {
            directories = path.split(separator: ":").map(String.init)
        } else if let vendorLibrary {
            directories = [(vendorLibrary as NSString).deletingLastPathComponent + "/dri"]
        } else {
            directories = []
        }
        return directories.map { $0 + "/swrast_dri.so" }
    }

    /// The file `handle` was loaded from, found through the entry point glvnd requires of every EGL vendor library.
    private static func libraryPath(_ handle: UnsafeMutableRawPointer) -> String? {
        guard let symbol = dlsym(handle, "__egl_Main") else { return nil }
        var origin = ms_symbol_origin()
        guard ms_dladdr(symbol, &origin) != 0, let file = origin.file else { return nil }
        return String(cString: file)
    }

    private static func hasRenderNode() -> Bool {
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []
        return nodes.contains { $0.hasPrefix("renderD") }
    }
}
