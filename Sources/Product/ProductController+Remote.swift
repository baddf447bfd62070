import Messaging
import Screens

/// The phone remote: its offer on the external screens (a QR code and a short code, or a lockout notice) and what
/// its users do, told to the subscribers.
extension ProductController {
    /// `remote.offer`: an empty link (and not locked) takes the offer off the screens.
    mutating func takeRemoteOffer(link: String, code: String, locked: Bool) -> Outcome {
        let offer = link.isEmpty && !locked ? nil : RemoteOffer(link: link, code: code, locked: locked)
        var outcome = Outcome(reply: .result(method: .remoteOffer, result: [:]))
        // The same offer again (hidden while someone is in control, then hidden again) shows nothing new.
        outcome.changes.remoteOffer = offer != remoteOffer
        remoteOffer = offer
        return outcome
    }

    /// `remote.activity`: told to the subscribers as an event; the screens do not change.
    func remoteActivity(_ activity: RemoteActivity) -> Outcome {
        var outcome = Outcome(reply: .result(method: .remoteActivity, result: [:]))
        outcome.events = [activity.event]
        return outcome
    }

    /// Whether the screen on the output named `name`, showing `kind`, draws the phone remote's offer: an external
    /// screen showing messages, where the placement puts it. What the painter draws and what an offer change redraws.
    public func showsRemoteOffer(_ kind: ScreenKind, onScreenNamed name: String) -> Bool {
        kind == .external(.messages) && remoteOfferPlacement.shows(onScreenNamed: name)
    }
}
