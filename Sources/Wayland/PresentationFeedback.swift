import CWaylandClient
import CWaylandProtocols
import FrameTiming
import Outputs

/// Owns one `wp_presentation_feedback`: how and when one committed frame reached the screen.
public final class PresentationFeedback {
    public enum Outcome {
        /// The `presented` event as sent: time in the presentation clock (`wp_presentation.clock_id`), refresh,
        /// vblank counter and flags.
        case presented(PresentationTiming)
        /// The frame was never shown (replaced, or the surface was hidden).
        case discarded
    }

    private var proxy: OpaquePointer?
    private var completion: ((Outcome) -> Void)?

    /// Requests feedback for the surface's next commit.
    public init?(presentation: OpaquePointer?, surface: OpaquePointer?, completion: @escaping (Outcome) -> Void) {
        guard let presentation, let surface, let proxy = wp_presentation_feedback(presentation, surface) else {
            return nil
        }
        self.proxy = proxy
        self.completion = completion
        wp_presentation_feedback_add_listener(proxy, feedbackListener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { cancel() }

    /// Destroys the object without reporting (its surface is going away).
    public func cancel() {
        if let proxy { wp_presentation_feedback_destroy(proxy) }
        proxy = nil
        completion = nil
    }

    fileprivate func finish(_ outcome: Outcome) {
        let handler = completion
        cancel()
        handler?(outcome)
    }
}

private nonisolated(unsafe) let feedbackListener: UnsafeMutablePointer<wp_presentation_feedback_listener> = {
    let listener = UnsafeMutablePointer<wp_presentation_feedback_listener>.allocate(capacity: 1)
    listener.initialize(
        to: wp_presentation_feedback_listener(
            sync_output: { _, _, _ in },
            presented: { data, _, secHi, secLo, nsec, refresh, seqHi, seqLo, flags in
                let timing = PresentationTiming(
                    secondsHigh: secHi, secondsLow: secLo, nanoseconds: nsec, refreshNanoseconds: refresh,
                    sequenceHigh: seqHi, sequenceLow: seqLo, flags: PresentationFlags(rawValue: flags))
                let feedback = Unmanaged<PresentationFeedback>.fromOpaque(data!).takeUnretainedValue()
                withExtendedLifetime(feedback) { feedback.finish(.presented(timing)) }
            },
            discarded: { data, _ in
                let feedback = Unmanaged<PresentationFeedback>.fromOpaque(data!).takeUnretainedValue()
                withExtendedLifetime(feedback) { feedback.finish(.discarded) }
            }))
    return listener
}()
