/// A playlist item Multiscreen draws itself rather than a file or a page: a text slide, set as a message is (the
/// theme's text on its background), or a card, as `card.open` shows one.
public enum Slide: Equatable, Hashable, Sendable {
    case text(String)
    case card(String)
}
