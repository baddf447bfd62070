/// The cards: at most one open per screen, and a waiting list (shown on the controller) of cards whose screen
/// went away, which the user can open again elsewhere. Nothing is lost when a monitor is unplugged.
///
/// Screen names are not checked here: the caller knows the connected outputs and reports a bad name as
/// ``CardError/unknownScreen(_:)`` (``ScreenModel`` does). The rule "a screen shows its card when its content mode is
/// `card`, and opening a card switches the screen to `card`" lives in ``ScreenModel/openCard(text:onScreen:)``,
/// which owns both the cards and the content modes.
public struct CardBoard: Equatable, Sendable {
    /// Open cards and waiting ones, in the order they were opened (or reopened).
    public private(set) var cards: [Card]
    private var nextID: UInt64

    /// - Parameter cards: restored cards; ids continue after the largest one.
    public init(cards: [Card] = []) {
        self.cards = cards
        nextID = (cards.map(\.id).max() ?? 0) + 1
    }

    public var open: [Card] { cards.filter { $0.screen != nil } }
    /// Cards whose screen went away, waiting in the controller's list.
    public var waiting: [Card] { cards.filter { $0.screen == nil } }

    public func card(onScreen screen: String) -> Card? { cards.first { $0.screen == screen } }

    /// Opens a new card on `screen`, replacing (closing) the card open there, if any.
    @discardableResult
    public mutating func open(text: String, onScreen screen: String) -> Card {
        cards.removeAll { $0.screen == screen }
        let card = Card(id: nextID, text: text, screen: screen)
        nextID += 1
        cards.append(card)
        return card
    }

    /// Closes (discards) the card open on `screen`.
    @discardableResult
    public mutating func close(onScreen screen: String) throws(CardError) -> Card {
        guard let index = cards.firstIndex(where: { $0.screen == screen }) else {
            throw .noCardOpen(screen: screen)
        }
        return cards.remove(at: index)
    }

    /// The screen went away: its card, if any, goes back to the waiting list. Returns the card moved.
    @discardableResult
    public mutating func screenRemoved(_ screen: String) -> Card? {
        guard let index = cards.firstIndex(where: { $0.screen == screen }) else { return nil }
        cards[index].screen = nil
        return cards[index]
    }

    /// Opens an existing card (waiting, or open elsewhere) on `screen`, replacing the card open there.
    @discardableResult
    public mutating func reopen(id: UInt64, onScreen screen: String) throws(CardError) -> Card {
        guard let index = cards.firstIndex(where: { $0.id == id }) else { throw .unknownCard(id: id) }
        var card = cards.remove(at: index)
        cards.removeAll { $0.screen == screen }
        card.screen = screen
        cards.append(card)
        return card
    }

    /// Removes a card for good, waiting or open.
    @discardableResult
    public mutating func discard(id: UInt64) throws(CardError) -> Card {
        guard let index = cards.firstIndex(where: { $0.id == id }) else { throw .unknownCard(id: id) }
        return cards.remove(at: index)
    }
}

/// Why a card request was refused.
public enum CardError: Error, Equatable, Sendable, CustomStringConvertible {
    case noCardOpen(screen: String)
    case unknownCard(id: UInt64)
    /// The screen named is not connected (checked by the caller, which knows the outputs).
    case unknownScreen(UnknownScreenError)

    public var description: String {
        switch self {
        case .noCardOpen(let screen): return "no card is open on \(screen)"
        case .unknownCard(let id): return "no card with id \(id)"
        case .unknownScreen(let error): return error.description
        }
    }
}
