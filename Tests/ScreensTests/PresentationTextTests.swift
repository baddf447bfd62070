import Outputs
import Testing

@testable import Screens

@Suite struct PresentationTextTests {
    @Test func summaryNamesTheOutput() {
        var info = OutputInfo(registryName: 5)
        info.name = "HEADLESS-2"
        info.description = "Headless output 1"
        info.modeWidth = 640
        info.modeHeight = 360
        info.refreshMilliHertz = 59_940
        let summary = ScreenSummary(output: info, index: 1, count: 3)
        #expect(summary.title == "HEADLESS-2")
        #expect(summary.lines.contains("640×360 @ 59.940 Hz"))
        #expect(summary.lines.contains("screen 2 of 3"))
        #expect(ScreenSummary.windowTitle(for: info) == "Multiscreen — HEADLESS-2")
    }

    @Test func paletteColoursAreDistinct() {
        let colours = ScreenPalette.backgrounds
        for i in colours.indices {
            for j in colours.indices where i < j {
                #expect(colours[i].distance(to: colours[j]) >= 40, "\(colours[i]) vs \(colours[j])")
            }
        }
    }

    @Test func naturalOrder() {
        #expect("HEADLESS-2".naturalOrder("HEADLESS-10"))
        #expect(!"HEADLESS-10".naturalOrder("HEADLESS-2"))
        #expect("DP-1".naturalOrder("HDMI-A-1"))
    }
}
