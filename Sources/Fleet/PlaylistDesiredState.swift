/// Which retained playlist document is in force on a kiosk, and what that asks of its screens: the fleet thread's
/// bookkeeping for the `…/playlist` topics, pure so that precedence and withdrawal are tested without a broker.
///
/// The most specific document wins: the kiosk's own, then its groups' in the order the config lists them, then the
/// site's. Whenever the document in force arrives (again: at every connection the broker hands the retained ones
/// over) or another takes its place, each of its screens is given `playlist.set`, which is idempotent (same items and
/// epoch, same picture: the wall clock decides the item), and the screens the previous one was given and this one is
/// not are cleared. Screens are taken from the kiosk's `status`: until the first one, nothing is applied; a screen
/// that appears later (plugged in) and that the document names, or any external one for `all-external`, is given it
/// then.
struct PlaylistDesiredState {
    enum Action: Equatable {
        case set(screen: String, DesiredPlaylist)
        case clear(screen: String)
    }

    /// The playlist topics this kiosk reads, most specific first.
    let topics: [String]
    private var documents: [String: DesiredPlaylist] = [:]
    /// The screens that are not the controller, as the last `status` listed them; nil before the first.
    private(set) var external: [String]?
    /// The topic whose document was last applied, nil when none was.
    private(set) var appliedTopic: String?
    /// The screens given the document in force (and so cleared when it goes without a successor for them).
    private(set) var applied: [String] = []

    init(topics: [String]) { self.topics = topics }

    /// The document in force and its topic.
    var inForce: (topic: String, playlist: DesiredPlaylist)? {
        for topic in topics { if let playlist = documents[topic] { return (topic, playlist) } }
        return nil
    }

    /// A document arrived on `topic` (nil: withdrawn, an empty retained payload).
    mutating func received(_ document: DesiredPlaylist?, on topic: String) -> [Action] {
        guard topics.contains(topic) else { return [] }
        documents[topic] = document
        guard let current = inForce else {
            appliedTopic = nil
            defer { applied = [] }
            return applied.map { .clear(screen: $0) }
        }
        // A less specific document that changed while a more specific one is in force changes nothing.
        if current.topic != topic && current.topic == appliedTopic { return [] }
        return apply(current)
    }

    /// The kiosk's screens as `status` lists them now: those that are not the controller.
    mutating func screensChanged(external now: [String]) -> [Action] {
        let changed = external != now
        external = now
        guard changed, let current = inForce else { return [] }
        // Screens gone (unplugged, or now the controller) are forgotten: the display thread keeps a playlist for its
        // monitor, and one plugged in again is given the document again (the same picture).
        applied.removeAll { !now.contains($0) }
        let fresh = current.playlist.targets(among: now).filter { !applied.contains($0) }
        if appliedTopic != current.topic { return apply(current) }
        applied += fresh
        return fresh.map { .set(screen: $0, current.playlist) }
    }

    private mutating func apply(_ current: (topic: String, playlist: DesiredPlaylist)) -> [Action] {
        appliedTopic = current.topic
        let targets = external.map { current.playlist.targets(among: $0) } ?? []
        let dropped = applied.filter { !targets.contains($0) }
        applied = targets
        return dropped.map { .clear(screen: $0) } + targets.map { .set(screen: $0, current.playlist) }
    }
}
