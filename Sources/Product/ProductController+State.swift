import Messaging
import Screens

/// The state file: written soon after a step changed the persistent state, tried again when a write fails. The
/// display thread hands the writing to a thread of its own (``stateToWrite()``, then ``stateWritten(_:failure:)``);
/// ``saveIfChanged()`` writes on the calling thread (tests).
extension ProductController {
    /// Writes the state file if anything changed since it was last written (atomic: write, fsync, rename; the
    /// previous file stays whole until the rename). - Returns: false when the write failed: the state stays
    /// unsaved, and the caller tries again later.
    @discardableResult
    public mutating func saveIfChanged() -> Bool {
        guard let (state, change) = stateToWrite() else { return true }
        do {
            try store.save(state)
            stateWritten(change, failure: nil)
            return true
        } catch {
            stateWritten(change, failure: error)
            return false
        }
    }

    /// The state to write, and the count of changes it includes (``stateChanges``); nil when nothing changed since
    /// the last write.
    public func stateToWrite() -> (state: PersistentState, change: Int)? {
        hasUnsavedState ? (model.persistentState, stateChanges) : nil
    }

    /// A write of the state as of change `change` ended, with `failure` or without. After a success the state is
    /// saved unless a later step changed it meanwhile (then ``hasUnsavedState`` stays true: write again).
    public mutating func stateWritten(_ change: Int, failure: StateStoreError?) {
        guard let failure else {
            if change == stateChanges { hasUnsavedState = false }
            saves.written += 1
            if saves.lastError != nil { logger.notice("state saved again to \(store.path)") }
            saves.lastError = nil
            return
        }
        // Logged once per failure kind, not once per retry.
        if saves.lastError != failure.description {
            logger.error("\(failure.description.logSafe); kept in memory, retrying")
        }
        saves.failed += 1
        saves.lastError = failure.description
    }

    /// Marks the state unsaved when the step changed it: a successful mutating request, or a change it reported.
    mutating func saving(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        if Self.mutates(outcome.reply) { outcome.changes.state = true }
        if outcome.changes.state {
            hasUnsavedState = true
            stateChanges += 1
        }
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
