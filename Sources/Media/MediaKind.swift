/// Which decoder a file needs: GdkPixbuf for a still or animated image, a GStreamer pipeline for a video.
public enum MediaKind: String, Sendable {
    case image
    case video
}
