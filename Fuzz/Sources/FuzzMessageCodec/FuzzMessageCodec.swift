import Messaging

/// Any bytes: decoded as a request line or rejected with a ``MessageError``, never a crash. A request that decodes
/// is encoded again and must decode to the same message (what the CLI sends is what the display thread gets).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessageCodec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? MessageCodec.decodeRequest(bytes: bytes) else { return 0 }
    let again = MessageCodec.encodeRequest(message)
    do {
        let decoded = try MessageCodec.decodeRequest(again)
        precondition(decoded == message, "round trip changed \(message) into \(decoded) via \(again)")
    } catch {
        preconditionFailure("\(message) encodes as \(again), which does not decode: \(error)")
    }
    return 0
}
