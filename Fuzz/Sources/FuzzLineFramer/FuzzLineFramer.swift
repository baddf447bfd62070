@testable import Remote

/// The first byte picks the line limit (1-256) and the seed of the cut points; the rest is the stream. Fed whole and
/// fed in pieces, the framer must report the same lines and overlong lines, never hold more than its limit, and
/// never report a line over the limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let limit = Int(data[0]) + 1
    let stream = UnsafeRawBufferPointer(start: data + 1, count: size - 1)

    var whole = LineFramer(limit: limit)
    let expected = whole.append(stream) + whole.finish()

    var pieces = LineFramer(limit: limit)
    var events: [LineFramer.Event] = []
    var state = UInt32(data[0]) &* 2_654_435_761 | 1
    var start = 0
    while start < stream.count {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        let length = min(Int(state % 7), stream.count - start)
        events += pieces.append(UnsafeRawBufferPointer(rebasing: stream[start..<start + length]))
        precondition(pieces.pendingBytes <= limit, "holds \(pieces.pendingBytes) bytes, limit \(limit)")
        start += length
    }
    events += pieces.finish()
    precondition(events == expected, "pieces gave \(events), whole gave \(expected)")
    for case .line(let line) in events {
        precondition(line.count <= limit, "a \(line.count)-byte line passed the \(limit)-byte limit")
        precondition(!line.contains(UInt8(ascii: "\n")), "a line with a newline in it")
    }
    return 0
}
