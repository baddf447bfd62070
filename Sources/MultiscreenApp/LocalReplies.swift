import Logging
import Messaging

/// The display thread's own producer's replies: nobody waits for them, but a refusal must not go unseen.
final class LocalReplies: ReplySink {
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func deliver(_ reply: Reply) {
        if case .error(let error) = reply {
            logger.warning("the controller UI's message was refused: \(error.message)")
        }
    }
}
