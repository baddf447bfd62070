import Screens

/// What one step's ``Changes`` ask of the screens, resolved from what each screen shows: which screens draw again,
/// which follow the step's new message to the frame that first shows it, which pages load again, and whether the
/// pointer's cursor is decided again. The display thread applies it as it is and decides nothing itself.
public struct ScreenUpdates: Equatable, Sendable {
    /// Screens (registry names) that draw again.
    public var redraws: Set<UInt32> = []
    /// Screens whose next frame shows the step's new message, and what each shows: the frame that first shows it
    /// reports its latency. A page's frame comes from its page, which follows the message there instead.
    public var messageFollowers: [UInt32: ScreenKind] = [:]
    /// Screens whose web page loads again.
    public var pageReloads: Set<UInt32> = []
    /// The roles changed: whether the pointer shows a cursor over each screen is decided again.
    public var cursor = false

    public init() {}
}

extension ProductController {
    /// What `changes` ask of the screens of the connected outputs, as they show things now (after the step).
    public func screenUpdates(for changes: Changes) -> ScreenUpdates {
        var updates = ScreenUpdates()
        updates.cursor = changes.assignment
        for output in outputs {
            let name = output.registryName
            let kind = kind(of: name)
            if changes.assignment || changes.everyScreen || changes.screens.contains(output.displayName) {
                updates.redraws.insert(name)
            }
            // The remote's QR code changes a corner of the screens that show it; the controller and the others look
            // the same with any offer, and a software frame of theirs for nothing would delay the next message's frame.
            if changes.remoteOffer && showsRemoteOffer(kind, onScreenNamed: output.displayName) {
                updates.redraws.insert(name)
            }
            if let message = changes.message, message.screen == nil || message.screen == output.displayName,
                !kind.isWeb
            {
                updates.messageFollowers[name] = kind
            }
            if changes.pageReloads.contains(output.displayName) { updates.pageReloads.insert(name) }
        }
        // A page in place of the controller UI shows nothing of ours: redrawing it would only copy the same page frame
        // again (a whole software frame per message, on the thread that delivers to the other pages).
        if changes.controllerUI, let controller = model.assignment.controller, !kind(of: controller).isWeb {
            updates.redraws.insert(controller)
        }
        return updates
    }
}
