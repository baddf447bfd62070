/// Why an asset is not in the cache, in words for `status` and the log (never holding the bytes of a response).
public enum AssetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Only `http://` and `https://` URLs are fetched.
    case unsupportedURL
    /// The server answered with a status other than 200.
    case status(Int)
    /// Bigger than one download may be (by its `Content-Length`, or counted while it came).
    case tooLarge(limit: Int64)
    /// Its bytes are not the ones the playlist item's `sha256` names.
    case checksumMismatch(expected: String, actual: String)
    /// Assets the playlists name fill the cache: this one does not fit beside them.
    case cacheFull(needed: Int64, capacity: Int64)
    /// The connection failed, timed out or ended before the whole body came.
    case transfer(String)
    /// The cache directory or one of its files could not be used.
    case file(String)

    public var description: String {
        switch self {
        case .unsupportedURL: "only http:// and https:// URLs are fetched"
        case .status(let code): "the server answered HTTP \(code)"
        case .tooLarge(let limit): "bigger than the download limit (\(limit) bytes)"
        case .checksumMismatch(let expected, let actual): "sha256 is \(actual), the playlist expects \(expected)"
        case .cacheFull(let needed, let capacity):
            "needs \(needed) bytes: the assets the playlists name fill the cache (\(capacity) bytes)"
        case .transfer(let reason): reason
        case .file(let reason): reason
        }
    }
}
