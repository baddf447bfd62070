import Testing

@testable import Rendering

/// Where the preload looks for Mesa's driver: where Mesa itself looks, in the same order.
struct MesaDriverPreloadTests {
    @Test func theDriverDirectoryIsBesideMesasEGLLibrary() {
        let candidates = MesaDriverPreload.driverCandidates(
            vendorLibrary: "/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0", environment: [:])
        #expect(candidates == ["/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"])
    }

    @Test func mesasDriversPathComesFirstEntryByEntry() {
        let candidates = MesaDriverPreload.driverCandidates(
            vendorLibrary: "/usr/lib/libEGL_mesa.so.0", environment: ["LIBGL_DRIVERS_PATH": "/opt/a:/opt/b"])
        #expect(candidates == ["/opt/a/swrast_dri.so", "/opt/b/swrast_dri.so"])
    }

    @Test func withoutMesaNothingIsTried() {
        #expect(MesaDriverPreload.driverCandidates(vendorLibrary: nil, environment: [:]).isEmpty)
    }
}
