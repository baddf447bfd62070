/// What becomes of a video's sound, reported with its start
/// (``VideoEvent/started(width:height:decoder:sound:position:)``) and shown in `status`.
public enum VideoSound: Equatable, Sendable {
    /// Not asked for: the audio is not even decoded.
    case muted
    /// Asked for, but the file has no audio stream (or none GStreamer can decode here).
    case noStream
    /// Asked for, but no audio output opened (no sound server, no sound card): the picture plays without it.
    case noOutput
    /// Playing through this GStreamer sink (`pulsesink`, `alsasink`, …: what `autoaudiosink` chose).
    case playing(sink: String)

    /// How `status` says it: "muted", "no audio stream", "no audio output", or the sink's name.
    public var description: String {
        switch self {
        case .muted: "muted"
        case .noStream: "no audio stream"
        case .noOutput: "no audio output"
        case .playing(let sink): sink
        }
    }
}
