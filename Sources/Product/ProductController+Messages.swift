import Foundation
import Messaging
import Screens

/// Messages and cards: what people send to the screens, how long messages stay, and the cards opened on screens.
extension ProductController {
    // MARK: - Messages

    /// `send`: a message for one external screen, or every screen when `screen` is nil.
    mutating func send(text: String, screen: String?, ttl: Double?) throws(MessageError) -> Outcome {
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw MessageError(.invalidParams, "\"text\" is empty or only whitespace: nothing to show")
        }
        if let screen { try refuseController(screen, for: "messages") }
        let logged = try invalidParams { () throws(UnknownScreenError) in
            try model.receive(text: text, screen: screen, ttl: ttl)
        }
        // What people send is theirs: its text only at debug, never in a kiosk's default journal.
        let target = screen ?? "every screen"
        logger.info("message #\(logged.id) for \(target) (\(logged.text.count) characters)")
        logger.debug("message #\(logged.id) for \(target): \(logged.text.prefix(80).logSafe)")
        var outcome = Outcome(reply: .sent(id: logged.id, screen: screen))
        outcome.events = [.messageReceived(id: logged.id, text: logged.text, screen: screen)]
        outcome.changes.message = logged
        outcome.changes.controllerUI = true
        return saving(outcome)
    }

    /// `messages.clear`: the messages of one screen, or of every screen.
    mutating func clearMessages(screen: String?) throws(MessageError) -> Outcome {
        let count = try invalidParams { () throws(UnknownScreenError) in try model.clearMessages(screen: screen) }
        logger.info("\(count) messages cleared from \(screen ?? "every screen")")
        var outcome = Outcome(reply: .messagesCleared(screen: screen, count: count))
        outcome.events = [.messagesCleared(screen: screen, count: count)]
        outcome.changes.everyScreen = true
        outcome.changes.controllerUI = true
        return saving(outcome)
    }

    /// When the next message sent with a ttl is due to go, or the screens' names (`screen.identify`): the caller asks
    /// ``expireMessages(now:)`` then.
    public var nextExpiry: Date? { [model.log.nextExpiry, identifyingUntil].compactMap { $0 }.min() }

    /// Removes the messages whose ttl is up, and the screens' names once their time is up.
    public mutating func expireMessages(now: Date = Date()) -> Outcome {
        var outcome = endIdentifying(now: now)
        let expired = model.expireMessages(at: now)
        guard !expired.isEmpty else { return outcome }
        outcome.events = expired.map { .messageExpired(id: $0.id) }
        outcome.changes.everyScreen = true
        outcome.changes.controllerUI = true
        outcome.changes.state = true
        return saving(outcome)
    }

    // MARK: - Cards

    /// `card.open`: a card on an external screen (its content becomes `card`).
    mutating func openCard(screen: String, text: String) throws(MessageError) -> Outcome {
        let before = model.assignment
        try refuseController(screen, for: "cards")
        let card = try invalidParams { () throws(CardError) in try model.openCard(text: text, onScreen: screen) }
        logger.info("card #\(card.id) opened on \(screen)")
        var outcome = Outcome(reply: .cardOpened(id: card.id, screen: screen))
        outcome.events = [.cardOpened(id: card.id, screen: screen, text: text)]
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// `card.close`: the card open on `screen` goes to the controller's waiting list.
    mutating func closeCard(screen: String) throws(MessageError) -> Outcome {
        let card: Card
        do {
            card = try model.closeCard(onScreen: screen)
        } catch .noCardOpen {
            throw MessageError(.refused, "no card is open on \(screen)")
        } catch {
            throw MessageError(.invalidParams, error.description)
        }
        logger.info("card #\(card.id) closed on \(screen)")
        var outcome = Outcome(reply: .cardClosed(id: card.id, screen: screen))
        outcome.events = [.cardClosed(id: card.id, screen: screen)]
        outcome.changes.screens = [screen]
        outcome.changes.controllerUI = true
        return saving(outcome)
    }

    /// `card.reopen`: a waiting card opened again, on `screen`.
    mutating func reopenCard(id: UInt32, screen: String) throws(MessageError) -> Outcome {
        let before = model.assignment
        try refuseController(screen, for: "cards")
        let card: Card
        do {
            card = try model.reopenCard(id: UInt64(id), onScreen: screen)
        } catch {
            throw MessageError(.invalidParams, error.description)
        }
        logger.info("card #\(card.id) opened again on \(screen)")
        var outcome = Outcome(reply: .cardReopened(id: card.id, screen: screen))
        outcome.events = [.cardOpened(id: card.id, screen: screen, text: card.text)]
        absorbReassignment(since: before, into: &outcome)
        outcome.changes.screens = [screen]
        return saving(outcome)
    }

    /// `card.discard`: a card gone for good, open or waiting.
    mutating func discardCard(id: UInt32) throws(MessageError) -> Outcome {
        let card: Card
        do {
            card = try model.discardCard(id: UInt64(id))
        } catch {
            throw MessageError(.invalidParams, error.description)
        }
        logger.info("card #\(card.id) discarded")
        var outcome = Outcome(reply: .cardDiscarded(id: card.id))
        outcome.events = [.cardDiscarded(id: card.id)]
        if let screen = card.screen { outcome.changes.screens = [screen] }
        outcome.changes.controllerUI = true
        return saving(outcome)
    }
}
