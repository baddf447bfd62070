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
    /// The topic whose document was last applied (or is waiting for the first `status`), nil when none was.
    private(set) var appliedTopic: String?
    /// The screens given a document (and so cleared when it goes without a successor for them).
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
        // A less specific document that changed while a more specific one is in force changes nothing.
        if let current = inForce, current.topic != topic, current.topic == appliedTopic { return [] }
        return reconcile()
    }

    /// The kiosk's screens as `status` lists them now: those that are not the controller.
    mutating func screensChanged(external now: [String]) -> [Action] {
        let first = external == nil
        guard external != now else { return [] }
        external = now
        if first { return reconcile() }
        guard let current = inForce else { return [] }
        // Screens gone (unplugged, or now the controller) are forgotten: the display thread keeps a playlist for its
        // monitor, and one plugged in again is given the document again (the same picture).
        applied.removeAll { !now.contains($0) }
        let fresh = current.playlist.targets(among: now).filter { !applied.contains($0) }
        applied += fresh
        return fresh.map { .set(screen: $0, current.playlist) }
    }

    /// What a previous run of the kiosk had given (its retained status): those screens are cleared too when no
    /// document in force names them any more, as if this run had given them.
    mutating func restored(topic: String, screens: [String]) -> [Action] {
        applied += screens.filter { !applied.contains($0) }
        if appliedTopic == nil { appliedTopic = topic }
        return external == nil ? [] : reconcile()
    }

    /// The document in force on each of its screens, and a clear for each screen given one before that it does not
    /// name; nothing until the screens are known.
    private mutating func reconcile() -> [Action] {
        let current = inForce
        appliedTopic = current?.topic
        guard let external else { return [] }
        let targets = current?.playlist.targets(among: external) ?? []
        let dropped = applied.filter { !targets.contains($0) }
        applied = targets
        let sets = current.map { current in targets.map { Action.set(screen: $0, current.playlist) } } ?? []
        return dropped.map { .clear(screen: $0) } + sets
    }
}
