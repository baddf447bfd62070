import Outputs

/// The union of every output's logical rectangle: the area a spanning window covers.
struct LayoutBounds {
    var x: Int32 = 0
    var y: Int32 = 0
    var width: Int32 = 0
    var height: Int32 = 0

    init(_ outputs: [OutputInfo]) {
        guard !outputs.isEmpty else { return }
        x = outputs.map(\.logicalX).min()!
        y = outputs.map(\.logicalY).min()!
        width = outputs.map { $0.logicalX + $0.logicalSize.width }.max()! - x
        height = outputs.map { $0.logicalY + $0.logicalSize.height }.max()! - y
    }
}
