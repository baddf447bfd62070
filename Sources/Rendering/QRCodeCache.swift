/// The QR code of the newest link, kept while the link stays the same: a screen showing the phone remote's code
/// redraws for every message, and the code changes only when a new one is issued. Owned by whoever draws (the
/// display thread); not thread-safe.
public final class QRCodeCache {
    private var newest: (text: String, code: QRCode?)?
    /// How many times a text was encoded (for tests: a second frame with the same link encodes nothing).
    public private(set) var encodings = 0

    public init() {}

    /// The code for `text`, encoded now only if it differs from the last text asked for; nil if it cannot be
    /// encoded.
    public func code(for text: String) -> QRCode? {
        if let newest, newest.text == text { return newest.code }
        encodings += 1
        let code = QRCode(text)
        newest = (text, code)
        return code
    }
}
