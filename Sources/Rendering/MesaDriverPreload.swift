import CLinux
import Foundation
import Glibc

/// Loads Mesa's EGL library and its software driver on a thread of their own, started before `run` parses its
/// arguments and reads its config, so that `eglInitialize` finds them loaded.
///
/// Why: on a machine without a GPU, half of `eglInitialize` (about 15 of 29 ms, on a 2-core machine) is the dynamic
/// loader mapping and relocating `swrast_dri.so` and the LLVM it links, while the second core has nothing to do.
/// Mesa's own `dlopen` of the driver then returns the copy loaded here: the dynamic loader knows a file by its name
/// and, failing that, by its device and inode (Debian's `*_dri.so` are hard links of one file). Opened `RTLD_LOCAL`:
/// should Mesa load another file after all, nothing of this copy is in the global scope for it to bind to; when Mesa
/// opens this one with `RTLD_GLOBAL`, the loader makes it global then. The loader's lock orders the two loads, and
/// holds back the threads the display thread starts meanwhile: the gain is what the display thread does before it
/// needs the lock, 2–4 ms.
///
/// The handles are never closed, so the driver stays mapped until the process exits, where Mesa alone would unload
/// it at `eglTerminate` (nothing draws after that).
///
/// Only where Mesa is the one EGL and will use its software driver: no GPU (`/dev/dri/renderD*`), no other vendor's
/// file in glvnd's `egl_vendor.d`, no vendor chosen through glvnd's variables. From Mesa 24.2 `libEGL_mesa` links
/// its drivers itself and `*_dri.so` is a stub for X servers (`libdril_dri.so`): loading `libEGL_mesa` is the whole
/// preload there.
public final class MesaDriverPreload: Sendable {
    private let done = DispatchSemaphore(value: 0)

    private init() {}

    /// Starts the loading thread. Whether to load (no GPU, Mesa the EGL in use) is decided on the thread, so that
    /// `main` spends nothing on it before parsing.
    public static func start(environment: [String: String]) -> MesaDriverPreload {
        let preload = MesaDriverPreload()
        let thread = Thread {
            defer { preload.done.signal() }
            guard !hasRenderNode(), mesaIsTheOnlyVendor(environment: environment),
                // The name Mesa's vendor file gives (Debian, Fedora and Arch alike).
                let vendor = dlopen("libEGL_mesa.so.0", RTLD_LAZY)
            else { return }
            for path in driverCandidates(vendorLibrary: libraryPath(vendor), environment: environment) {
                if dlopen(path, RTLD_NOW | RTLD_LOCAL) != nil { return }
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

    /// Where to look for `swrast_dri.so`: each directory of `$LIBGL_DRIVERS_PATH`, as Mesa does, else the `dri`
    /// directory beside its EGL library (Mesa's default, `<libdir>/dri`; a Mesa built with another one goes without
    /// the preload's gain). None where that directory has Mesa 24.2's stub (`libdril_dri.so`).
    static func driverCandidates(
        vendorLibrary: String?, environment: [String: String],
        fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> [String] {
        let directories: [String]
        if let path = environment["LIBGL_DRIVERS_PATH"], !path.isEmpty {
            directories = path.split(separator: ":").map(String.init)
        } else if let vendorLibrary {
            directories = [(vendorLibrary as NSString).deletingLastPathComponent + "/dri"]
        } else {
            directories = []
        }
        return directories.filter { !fileExists($0 + "/libdril_dri.so") }.map { $0 + "/swrast_dri.so" }
    }

    /// Whether glvnd will give EGL to Mesa: no vendor named through its variables, and no vendor file but Mesa's in
    /// its two directories (NVIDIA's EGL installed where no render node is, in a container, would be a waste).
    static func mesaIsTheOnlyVendor(
        environment: [String: String],
        vendorFiles: (String) -> [String] = { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
    ) -> Bool {
        if environment["__EGL_VENDOR_LIBRARY_FILENAMES"] != nil || environment["__EGL_VENDOR_LIBRARY_DIRS"] != nil {
            return false
        }
        let files = ["/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d"].flatMap(vendorFiles)
        return !files.isEmpty && files.allSatisfy { $0.contains("mesa") }
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
