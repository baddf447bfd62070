import Testing

@testable import Rendering

/// Where the preload looks for Mesa's driver, and when it looks at all.
struct MesaDriverPreloadTests {
    @Test func theDriverDirectoryIsBesideMesasEGLLibrary() {
        let candidates = MesaDriverPreload.driverCandidates(
            vendorLibrary: "/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0", environment: [:], fileExists: { _ in false })
        #expect(candidates == ["/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"])
    }

    @Test func mesasDriversPathComesFirstEntryByEntry() {
        let candidates = MesaDriverPreload.driverCandidates(
            vendorLibrary: "/usr/lib/libEGL_mesa.so.0", environment: ["LIBGL_DRIVERS_PATH": "/opt/a:/opt/b"],
            fileExists: { _ in false })
        #expect(candidates == ["/opt/a/swrast_dri.so", "/opt/b/swrast_dri.so"])
    }

    @Test func withoutMesaNothingIsTried() {
        #expect(MesaDriverPreload.driverCandidates(vendorLibrary: nil, environment: [:]).isEmpty)
    }

    /// Mesa 24.2 and later: `libEGL_mesa` links its drivers; `swrast_dri.so` is the X servers' stub.
    @Test func aMesaWhoseDriversAreStubsLoadsNone() {
        let candidates = MesaDriverPreload.driverCandidates(
            vendorLibrary: "/usr/lib/libEGL_mesa.so.0", environment: [:],
            fileExists: { $0 == "/usr/lib/dri/libdril_dri.so" })
        #expect(candidates.isEmpty)
    }

    @Test func onlyWhereMesaIsTheOnlyEGLVendor() {
        let mesaOnly: (String) -> [String] = { $0.hasPrefix("/usr") ? ["50_mesa.json"] : [] }
        #expect(MesaDriverPreload.mesaIsTheOnlyVendor(environment: [:], vendorFiles: mesaOnly))
        #expect(
            !MesaDriverPreload.mesaIsTheOnlyVendor(
                environment: [:], vendorFiles: { $0.hasPrefix("/usr") ? ["10_nvidia.json", "50_mesa.json"] : [] }))
        #expect(!MesaDriverPreload.mesaIsTheOnlyVendor(environment: [:], vendorFiles: { _ in [] }))
        #expect(
            !MesaDriverPreload.mesaIsTheOnlyVendor(
                environment: ["__EGL_VENDOR_LIBRARY_FILENAMES": "/opt/egl.json"], vendorFiles: mesaOnly))
    }
}
