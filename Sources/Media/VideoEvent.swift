/// What a ``VideoPipeline`` reports, on its bus thread ("media-bus"): never on the display thread, so a receiver
/// forwards it (to the controller's queue) rather than acting on Wayland objects.
public enum VideoEvent: Sendable {
    /// The pipeline plays, or is ready to at a start on the clock still to come: the negotiated frame size, the
    /// factory name of the element decoding the video (`avdec_h264`, `vp9dec`, a `va…`/`v4l2…` one when the hardware
    /// path was chosen), for `status`, how far into the video it started, in seconds (0 unless it was told where the
    /// clock says it is and seeked there), and what became of its sound.
    case started(width: Int, height: Int, decoder: String, sound: VideoSound, position: Double)
    /// It was told to start `seconds` in but could not be (the stream refused the seek, or its length is unknown):
    /// it plays from the beginning instead. Once, before ``started(width:height:decoder:sound:position:)``.
    case startRefused(seconds: Double, reason: String)
    /// The end of a video that does not loop; its last frame stays shown.
    case ended
    /// The pipeline failed; it produces no more frames. ``MediaError/unsupported(path:reason:)`` names the missing
    /// plugin when GStreamer said which.
    case error(MediaError)
    /// No frame for this long while playing (the caller restarts the pipeline, with backoff).
    case stalled(seconds: Double)
}
