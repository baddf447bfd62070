import Outputs
import Testing

@testable import Media

/// The CPU composite `screen.capture` draws layers with: turns, scaling and clipping as the compositor shows them.
@Suite struct PictureCompositeTests {
    /// 2×2, XRGB bytes (B, G, R, X): red, green / blue, white.
    static let picture: [UInt8] = [0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0]

    static func draw(_ rotation: MediaRotation, into size: Int = 2, at destination: Rect? = nil) -> [[String]] {
        var target = [UInt8](repeating: 0, count: size * size * 4)
        picture.withUnsafeBytes { bytes in
            PictureComposite.draw(
                .init(pixels: bytes.baseAddress!, width: 2, height: 2, stride: 8), rotation: rotation,
                source: Rect(x: 0, y: 0, width: 2, height: 2), into: &target, targetWidth: size, targetHeight: size,
                destination: destination ?? Rect(x: 0, y: 0, width: Float(size), height: Float(size)))
        }
        let names: [[UInt8]: String] = [
            [0, 0, 255]: "R", [0, 255, 0]: "G", [255, 0, 0]: "B", [255, 255, 255]: "W", [0, 0, 0]: "-",
        ]
        return (0..<size).map { y in
            (0..<size).map { x in
                let at = (y * size + x) * 4
                return names[Array(target[at..<(at + 3)])] ?? "?"
            }
        }
    }

    @Test(arguments: [
        (MediaRotation.none, [["R", "G"], ["B", "W"]]), (.quarter, [["B", "R"], ["W", "G"]]),
        (.half, [["W", "B"], ["G", "R"]]), (.threeQuarters, [["G", "W"], ["R", "B"]]),
    ])
    func eachTurnIsTheClockwiseTurnOfThePicture(_ rotation: MediaRotation, _ expected: [[String]]) {
        #expect(Self.draw(rotation) == expected)
    }

    @Test func scaledAndPlacedInsideTheTargetOnly() {
        // At its own size at the top left of a 4×4 target, the rest untouched; a destination hanging off the target is
        // clipped to it.
        let drawn = Self.draw(.none, into: 4, at: Rect(x: 0, y: 0, width: 2, height: 2))
        #expect(drawn[0][0] == "R" && drawn[1][1] == "W" && drawn[3][3] == "-" && drawn[0][3] == "-")
        let clipped = Self.draw(.none, into: 2, at: Rect(x: 1, y: 1, width: 2, height: 2))
        #expect(clipped == [["-", "-"], ["-", "R"]])
    }
}
