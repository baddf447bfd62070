import CGStreamer
import COnDemandLibraries

/// GStreamer loaded and initialised once per process, on first use: its libraries are not linked (COnDemandLibraries),
/// `gst_init` scans the plugin registry (seconds the first time on a machine, a cached file afterwards), and the
/// missing-plugin descriptions need pbutils initialised.
enum GStreamerRuntime {
    /// Nil once GStreamer is up; the reason when it could not start (then no video plays, images still do).
    static let failure: String? = {
        if let failure = multiscreen_open_library(on_demand_gstreamer) {
            return "cannot load GStreamer: \(String(cString: failure))"
        }
        var error: UnsafeMutablePointer<GError>?
        guard gst_init_check(nil, nil, &error) != 0 else {
            defer { if let error { g_error_free(error) } }
            return error?.pointee.message.map { String(cString: $0) } ?? "gst_init failed"
        }
        gst_pb_utils_init()
        return nil
    }()
}
