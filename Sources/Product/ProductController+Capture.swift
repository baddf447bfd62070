import Messaging
import Screens

/// `screen.capture`: a picture of what a screen shows, from Multiscreen's own drawing (``CaptureRequest``).
extension ProductController {
    func captureScreen(screen: String, path: String) throws(MessageError) -> Outcome {
        let output = try invalidParams { () throws(UnknownScreenError) in try model.roles.output(named: screen) }
        var outcome = Outcome()
        outcome.capture = CaptureRequest(registryName: output.registryName, screen: screen, path: path)
        return outcome
    }

    /// The reply to a capture written to its file (`width`×`height` pixels, in `milliseconds` from the request), or
    /// not (`failure`, one sentence).
    public static func captured(
        _ request: CaptureRequest, width: Int, height: Int, milliseconds: Double, failure: String?
    ) -> Reply {
        if let failure { return .error(MessageError(.refused, "\(request.screen): \(failure)")) }
        return .result(
            method: .captureScreen,
            result: [
                "screen": .string(request.screen), "path": .string(request.path), "width": .integer(width),
                "height": .integer(height), "milliseconds": .number((milliseconds * 10).rounded() / 10),
            ])
    }
}
