import Outputs

/// The text a screen shows about itself: which output it is, its mode and scale, and its place among the screens.
public struct ScreenSummary: Equatable, Sendable {
    public var title: String
    public var lines: [String]

    /// - Parameters:
    ///   - index: 0-based position among the screens (shown 1-based).
    ///   - count: number of screens.
    public init(output: OutputInfo, index: Int, count: Int) {
        title = output.displayName
        var lines: [String] = []
        if let description = output.description, description != output.name { lines.append(description) }
        let makeModel = [output.make, output.model].filter { !$0.isEmpty }.joined(separator: " ")
        if !makeModel.isEmpty { lines.append(makeModel) }
        lines.append(output.modeText)
        lines.append("scale \(output.scale) · logical \(output.logicalSize.width)×\(output.logicalSize.height)")
        lines.append("screen \(index + 1) of \(count)")
        self.lines = lines
    }

    /// The window title for the output: "Multiscreen — HEADLESS-1".
    public static func windowTitle(for output: OutputInfo) -> String {
        "Multiscreen — \(output.displayName)"
    }
}
