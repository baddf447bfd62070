import CGStreamer
import CLinux
import Glibc
import Synchronization
import SystemCalls

/// What appsink's streaming thread talks to: the frame pool, the frame-ready eventfd and the clock of the last
/// frame. Its own object, not the ``VideoPipeline``, so that the C callback's unretained pointer stays valid until the
/// pipeline is in NULL state whatever releases the pipeline object (its `deinit` stops the pipeline first, while this
/// is still alive).
final class FrameReceiver: @unchecked Sendable {
    let pool = FramePool()
    /// eventfd (non-blocking, close-on-exec) written once per published frame.
    let readyDescriptor: Int32
    /// `MonotonicClock` nanoseconds of the last frame published, or of ``markWaiting()``.
    let lastFrame = Atomic<UInt64>(0)
    let shownLoops = Atomic<Int>(0)

    init() throws(SystemCallError) {
        readyDescriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { close(readyDescriptor) }

    /// From now on (or from `time`, ``MonotonicClock`` ns, for a first frame due later) a frame is expected: the
    /// stall clock starts.
    func markWaiting(from time: UInt64 = 0) {
        lastFrame.store(max(MonotonicClock.nanoseconds(), time), ordering: .relaxed)
    }

    /// appsink's `new_sample`, on the streaming thread: the newest sample copied into a free slot, the display
    /// thread woken. Never blocks on the display thread; a frame with nowhere to go is dropped.
    static let newSample: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> GstFlowReturn = {
        sink, context in
        guard let sink, let context else { return GST_FLOW_OK }
        let receiver = Unmanaged<FrameReceiver>.fromOpaque(context).takeUnretainedValue()
        guard let sample = gst_app_sink_pull_sample(sink) else { return GST_FLOW_OK }
        defer { gst_sample_unref(sample) }
        var width: Int32 = 0
        var height: Int32 = 0
        guard cgst_sample_size(sample, &width, &height) != 0, width > 0, height > 0 else { return GST_FLOW_OK }
        receiver.lastFrame.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        let published = receiver.pool.publish(
            width: width, height: height, presentationTime: UInt64(cgst_sample_presentation_time(sample))
        ) { pixels in
            cgst_sample_copy_bgrx(
                sample, pixels.pixels.assumingMemoryBound(to: guint8.self), pixels.stride, width, height) != 0
        }
        if published {
            var one: UInt64 = 1
            _ = write(receiver.readyDescriptor, &one, 8)
        }
        return GST_FLOW_OK
    }
}
