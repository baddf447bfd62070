/// Why a file cannot be shown, precisely enough for the error reply, the log line and the screen's health. Each
/// case names what was refused and why; ``description`` is one sentence whose paths have their control characters
/// escaped (a path may hold any byte but NUL and `/`, and a newline in a log line or a reply is an injection).
public enum MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(path: String)
    /// A directory, a device, a FIFO: anything but a regular file.
    case notAFile(path: String)
    /// The file exists but cannot be opened or read; `reason` is the system's (`strerror`).
    case unreadable(path: String, reason: String)
    /// Zero bytes.
    case empty(path: String)
    /// The header claims more pixels than `limit`: refused before anything of that size is allocated.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// Not an image or video this machine can decode; for video, `reason` names the missing GStreamer plugin or
    /// decoder when GStreamer says which.
    case unsupported(path: String, reason: String)
    /// A file of a known kind that fails to decode: truncated, a broken container, a decoder error.
    case corrupt(path: String, reason: String)
    /// A playing video produced no frame for this long.
    case stalled(seconds: Double)

    public var description: String {
        switch self {
        case .notFound(let path): "no such file: \(Self.escaped(path))"
        case .notAFile(let path): "not a regular file (a directory or a device): \(Self.escaped(path))"
        case .unreadable(let path, let reason): "cannot read \(Self.escaped(path)): \(Self.escaped(reason))"
        case .empty(let path): "empty file (0 bytes): \(Self.escaped(path))"
        case .tooLarge(let width, let height, let limit):
            "image too large: \(width)×\(height) pixels is more than the limit of \(limit) pixels"
        case .unsupported(let path, let reason):
            "cannot decode \(Self.escaped(path)): \(Self.escaped(reason))"
        case .corrupt(let path, let reason): "damaged file \(Self.escaped(path)): \(Self.escaped(reason))"
        case .stalled(let seconds):
            "video stalled: no frame for \((seconds * 10).rounded() / 10) s"
        }
    }

    /// `text` with C0 and C1 control characters (and DEL) written as `\n`, `\t`, `\r` or `\u{XX}`, and a
    /// backslash doubled so that the escape cannot be forged.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x0A: result += "\\n"
            case 0x09: result += "\\t"
            case 0x0D: result += "\\r"
            case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
