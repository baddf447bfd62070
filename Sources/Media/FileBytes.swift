import Glibc

/// A file's bytes read forward through one 64 KiB window, for walking a container without holding the file.
///
/// Why not map it: a mapped file that shrinks while it is read (a playlist file replaced by the fleet) raises
/// SIGBUS, which ends the process; and a 30 MB JPEG read whole would cost more than the picture it decodes to. A
/// read that fails reads as zeros and sets ``readError``.
final class FileBytes {
    let count: Int
    private let descriptor: Int32
    private var window: [UInt8]
    private var windowStart = 0
    private var windowCount = 0
    private(set) var readError: Int32?
    static let windowSize = 64 << 10

    /// Reads `descriptor` (not owned: the caller closes it) of `count` bytes.
    init(descriptor: Int32, count: Int) {
        self.descriptor = descriptor
        self.count = count
        window = [UInt8](repeating: 0, count: Self.windowSize)
    }

    subscript(index: Int) -> UInt8 {
        if index < windowStart || index >= windowStart + windowCount { load(at: index) }
        guard index >= windowStart && index < windowStart + windowCount else { return 0 }
        return window[index - windowStart]
    }

    /// The first index at or after `start` holding `byte`, or nil before the end.
    func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        var index = start
        while index < count {
            if index < windowStart || index >= windowStart + windowCount { load(at: index) }
            guard index >= windowStart && index < windowStart + windowCount else { return nil }
            let offset = index - windowStart
            let found = window.withUnsafeBytes { buffer in
                memchr(buffer.baseAddress! + offset, Int32(byte), windowCount - offset)
            }
            if let found {
                return windowStart + window.withUnsafeBytes { $0.baseAddress!.distance(to: UnsafeRawPointer(found)) }
            }
            index = windowStart + windowCount
        }
        return nil
    }

    /// `length` bytes from `start` as text (a four-character code, a signature).
    func ascii(at start: Int, length: Int) -> String {
        String(decoding: (start..<min(start + length, count)).map { self[$0] }, as: UTF8.self)
    }

    private func load(at index: Int) {
        guard index >= 0 && index < count else { return }
        windowStart = index
        windowCount = 0
        let wanted = min(Self.windowSize, count - index)
        while windowCount < wanted {
            let read = window.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + windowCount, wanted - windowCount, off_t(index + windowCount))
            }
            if read < 0 && errno == EINTR { continue }
            if read < 0 { readError = errno }
            if read <= 0 { break }
            windowCount += read
        }
    }
}
