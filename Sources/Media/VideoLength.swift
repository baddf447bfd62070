import CGStreamer

/// How long a video file plays, as GStreamer's discoverer reads it from the container (and, for a container that
/// does not say, from the stream itself): what a playlist item without seconds lasts. Blocking, for a reader
/// thread: the discoverer opens the file and prerolls its decoders, tens of milliseconds for a local file.
public enum VideoLength {
    /// The longest a file may take to tell its length: a file that has not by then is refused.
    public static let timeoutSeconds = 3.0

    /// - Throws: the file's ``MediaError`` (missing, not a file, empty, unreadable), `.unsupported` for a file
    ///   that is not a video by its first bytes or that GStreamer cannot read, `.corrupt` for one that tells no
    ///   length (a stream, a damaged file).
    public static func measure(path: String) throws(MediaError) -> Double {
        guard try MediaProbe.kind(ofFileAt: path) == .video else {
            throw .unsupported(path: path, reason: "an image has no length of its own (give the item seconds)")
        }
        if let failure = GStreamerRuntime.failure {
            throw .unsupported(path: path, reason: "GStreamer cannot start: \(failure)")
        }
        var error: UnsafeMutablePointer<GError>?
        func message() -> String {
            defer {
                if let error { g_error_free(error) }
                error = nil
            }
            return error?.pointee.message.map { String(cString: $0) } ?? "unknown error"
        }
        guard let uri = gst_filename_to_uri(path, &error) else {
            throw .unreadable(path: path, reason: message())
        }
        defer { g_free(uri) }
        guard let discoverer = gst_discoverer_new(GstClockTime(timeoutSeconds * 1e9), &error) else {
            throw .unsupported(path: path, reason: "no discoverer: \(message())")
        }
        defer { g_object_unref(discoverer) }
        let info = gst_discoverer_discover_uri(discoverer, uri, &error)
        defer { if let info { g_object_unref(UnsafeMutableRawPointer(info)) } }
        guard let info, gst_discoverer_info_get_result(info) == GST_DISCOVERER_OK else {
            let result = info.map { gst_discoverer_info_get_result($0) }
            let reason = result == GST_DISCOVERER_TIMEOUT ? "no length within \(timeoutSeconds) s" : message()
            throw .unsupported(path: path, reason: reason)
        }
        let nanoseconds = gst_discoverer_info_get_duration(info)
        guard nanoseconds != GstClockTime.max, nanoseconds > 0 else {
            throw .corrupt(path: path, reason: "it tells no length")
        }
        return Double(nanoseconds) / 1e9
    }
}
