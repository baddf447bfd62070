import Foundation
import Messaging
import Screens

/// `screen.capture`: a picture of what a screen shows, from Multiscreen's own drawing (``CaptureRequest``).
extension ProductController {
    func captureScreen(screen: String, path: String?) throws(MessageError) -> Outcome {
        let output = try connected(screen)
        var outcome = Outcome()
        outcome.capture = CaptureRequest(registryName: output.registryName, screen: screen, path: path)
        return outcome
    }

    /// The reply to a capture written to its file, or encoded (`png`, carried in the reply as base64) when it names
    /// none (`width`×`height` pixels, in `milliseconds` from the request), or not (`failure`, one sentence).
    public static func captured(
        _ request: CaptureRequest, width: Int, height: Int, milliseconds: Double, png: [UInt8]? = nil,
        failure: String?
    ) -> Reply {
        if let failure { return .error(MessageError(.refused, "\(request.screen): \(failure)")) }
        var result: [String: JSONValue] = [
            "screen": .string(request.screen), "width": .integer(width), "height": .integer(height),
            "milliseconds": .number((milliseconds * 10).rounded() / 10),
        ]
        if let path = request.path { result["path"] = .string(path) }
        if let png { result["png"] = .string(Data(png).base64EncodedString()) }
        return .result(method: .captureScreen, result: result)
    }
}
