import Testing

@testable import Outputs

@Suite struct SurfaceGeometryTests {
    private func output(width: Int32, height: Int32, scale: Int32 = 1, transform: Int32 = 0) -> OutputInfo {
        var info = OutputInfo(registryName: 1)
        info.modeWidth = width
        info.modeHeight = height
        info.scale = scale
        info.transform = transform
        return info
    }

    @Test func zeroConfigureFallsBackToTheOutputMode() {
        let g = SurfaceGeometry.resolve(
            configuredWidth: 0, configuredHeight: 0, output: output(width: 640, height: 360), fractionalScale120: nil)
        #expect(g.bufferWidth == 640 && g.bufferHeight == 360 && g.bufferScale == 1)
    }

    @Test func integerScaleMultipliesTheBuffer() {
        let g = SurfaceGeometry.resolve(
            configuredWidth: 320, configuredHeight: 180, output: output(width: 640, height: 360, scale: 2),
            fractionalScale120: nil)
        #expect(g.bufferWidth == 640 && g.bufferHeight == 360 && g.bufferScale == 2)
        #expect(g.bufferWidth % g.bufferScale == 0 && g.bufferHeight % g.bufferScale == 0)
    }

    @Test func zeroConfigureWithScaleUsesLogicalSize() {
        let g = SurfaceGeometry.resolve(
            configuredWidth: 0, configuredHeight: 0, output: output(width: 1280, height: 720, scale: 2),
            fractionalScale120: nil)
        #expect(g.logicalWidth == 640 && g.bufferWidth == 1280 && g.bufferScale == 2)
    }

    @Test func rotatedOutputSwapsTheFallbackSize() {
        let g = SurfaceGeometry.resolve(
            configuredWidth: 0, configuredHeight: 0, output: output(width: 640, height: 360, transform: 1),
            fractionalScale120: nil)
        #expect(g.logicalWidth == 360 && g.logicalHeight == 640)
    }

    @Test func fractionalScaleUsesAViewport() {
        let g = SurfaceGeometry.resolve(
            configuredWidth: 1000, configuredHeight: 500, output: output(width: 1500, height: 750),
            fractionalScale120: 180)
        #expect(g.usesViewport && g.bufferScale == 1)
        #expect(g.bufferWidth == 1500 && g.bufferHeight == 750)
        #expect(g.logicalWidth == 1000 && g.logicalHeight == 500)
    }

    @Test func nothingKnownStillGivesAValidBuffer() {
        let g = SurfaceGeometry.resolve(configuredWidth: 0, configuredHeight: 0, output: nil, fractionalScale120: nil)
        #expect(g.bufferWidth >= 1 && g.bufferHeight >= 1)
    }
}
