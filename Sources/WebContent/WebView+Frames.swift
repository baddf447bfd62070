internal import CWebEngine
import Logging

/// Frame import: wpebackend-fdo hands each frame the web process drew to ``FrameClient``; the newest waits in
/// ``pendingFrame`` until the screen copies it into its texture, and WebKit draws the next once that one was shown.
extension WebView {
    /// Copies the newest frame, if one waits, with `upload` (pixels in B, G, R, A byte order, rows `stride` bytes
    /// apart) and gives the buffer back to WPE at once. - Returns: whether a frame was uploaded.
    @discardableResult
    public func takeFrame(
        _ upload: (_ pixels: UnsafeRawPointer, _ width: Int32, _ height: Int32, _ stride: Int32) -> Void
    ) -> Bool {
        guard let frame = pendingFrame, let exportable else { return false }
        pendingFrame = nil
        lastFrameExportedAt = pendingFrameExportedAt
        lastFrameWaitedAtMost = pendingFrameWaitedAtMost
        var pixels = multiscreen_shm_pixels()
        if multiscreen_shm_begin(frame, &pixels), let data = pixels.data {
            if frameSize != (pixels.width, pixels.height) {
                frameSize = (pixels.width, pixels.height)
                logger.info("web view: \(url.logSafeURL) frames are \(pixels.width)x\(pixels.height) pixels")
            }
            upload(data, pixels.width, pixels.height, pixels.stride)
            multiscreen_shm_end(frame)
        }
        wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, frame)
        frameCompletePending = true
        return true
    }

    /// The screen's frame that showed the last frame taken was shown by the compositor: WebKit may draw the next.
    public func framePresented() {
        guard frameCompletePending, let exportable else { return }
        frameCompletePending = false
        wpe_view_backend_exportable_fdo_dispatch_frame_complete(exportable)
    }

    fileprivate func exported(_ frame: OpaquePointer) {
        framesReceived += 1
        pendingFrameExportedAt = Self.monotonicNanoseconds()
        pendingFrameWaitedAtMost = mainContext.readyWaitedAtMost
        if framesReceived == 1 {
            let elapsed = Double(Self.monotonicNanoseconds() &- openedAt) / 1e6
            logger.info(
                "web view: first frame of \(url.logSafeURL) \((elapsed * 10).rounded() / 10) ms after it was opened")
        }
        if let older = pendingFrame, let exportable {
            // Never hold a frame past the next one.
            framesDropped += 1
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, older)
        }
        pendingFrame = frame
        if state != .shown, case .loading = state { state = .shown }
        onChange()
    }
}

/// The exportable backend's client: receives frames for a view. A box of its own, because WebKit may free the
/// backend after the ``WebView`` is gone; it forgets the view on ``WebView/destroy()`` and is released by the
/// backend's destroy notify.
final class FrameClient {
    weak var view: WebView?
    var exportable: OpaquePointer?

    /// The client table wpebackend-fdo calls, at a fixed address for the life of the process.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<wpe_view_backend_exportable_fdo_client> = {
        let table = UnsafeMutablePointer<wpe_view_backend_exportable_fdo_client>.allocate(capacity: 1)
        table.initialize(
            to: wpe_view_backend_exportable_fdo_client(
                export_buffer_resource: nil, export_dmabuf_resource: nil,
                export_shm_buffer: { data, buffer in
                    guard let data, let buffer else { return }
                    let client = Unmanaged<FrameClient>.fromOpaque(data).takeUnretainedValue()
                    if let view = client.view {
                        view.exported(buffer)
                    } else if let exportable = client.exportable {
                        wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(exportable, buffer)
                    }
                }, _wpe_reserved0: nil, _wpe_reserved1: nil))
        return table
    }()
}
