import Screens

/// Any text as config.toml: a ``RoleConfig`` or a ``RoleConfigError``, never a crash (TOMLKit's toml++ parser
/// underneath included). Bytes that are not UTF-8 are read as the loader reads a file: decoded with replacement.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoleConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? RoleConfig.parse(text)
    return 0
}
