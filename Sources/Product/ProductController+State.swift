import Messaging
import Screens

/// The state file: written soon after a step changed the persistent state, tried again when a write fails.
extension ProductController {
    /// Writes the state file if anything changed since it was last written (atomic: write, fsync, rename; the
    /// previous file stays whole until the rename). - Returns: false when the write failed: the state stays
    /// unsaved, and the caller tries again later.
    @discardableResult
    public mutating func saveIfChanged() -> Bool {
        guard hasUnsavedState else { return true }
        do {
            try store.save(model.persistentState)
            hasUnsavedState = false
            saves.written += 1
            if saves.lastError != nil { logger.notice("state saved again to \(store.path)") }
            saves.lastError = nil
            return true
        } catch {
            // Logged once per failure kind, not once per retry.
            if saves.lastError != error.description {
                logger.error("\(error.description.logSafe); kept in memory, retrying")
            }
            saves.failed += 1
            saves.lastError = error.description
            return false
        }
    }

    /// Marks the state unsaved when the step changed it: a successful mutating request, or a change it reported.
    mutating func saving(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        if Self.mutates(outcome.reply) { outcome.changes.state = true }
        if outcome.changes.state { hasUnsavedState = true }
        return outcome
    }

    /// Whether a successful reply of this method changed the persistent state.
    private static func mutates(_ reply: Reply?) -> Bool {
        guard case .result(let method, _)? = reply else { return false }
        switch method {
        case .send, .openCard, .closeCard, .reopenCard, .discardCard, .setRole, .resetRole, .setContent,
            .clearMessages, .openWeb, .closeWeb, .showMedia, .stopMedia, .setPlaylist, .clearPlaylist,
            .interruptPlaylist, .nextPlaylistItem, .previousPlaylistItem, .pausePlaylist, .resumePlaylist, .setSchedule:
            return true
        case .status, .outputs, .subscribeEvents, .remoteOffer, .reloadWeb, .remoteActivity, .identifyScreens,
            .playlistHistory, .captureScreen, .showPlaylist, .showSchedule:
            return false
        }
    }
}
