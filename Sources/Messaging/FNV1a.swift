/// FNV-1a, 64 bits, as 16 hex digits: a short name for some bytes (a request id too long to keep, a playlist
/// document), never a guard against forgery.
public enum FNV1a {
    /// The standard offset basis; another basis gives an independent hash of the same bytes.
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    public static func hex(_ bytes: some Sequence<UInt8>, basis: UInt64 = offsetBasis) -> String {
        let hash = bytes.reduce(basis) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
