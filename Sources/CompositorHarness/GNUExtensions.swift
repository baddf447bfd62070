#if canImport(Glibc)
    import Glibc
#endif

/// glibc functions declared only under `_GNU_SOURCE`, which Swift's Glibc module does not define, looked up at run
/// time. They are plain (non-variadic) C functions, so calling them through a typed pointer is exactly a C call.
enum GNUExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `pipe2(2)` (glibc 2.9).
    static let pipe2: Pipe2? = lookup("pipe2")
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29).
    static let addChdir: AddChdir? = lookup("posix_spawn_file_actions_addchdir_np")
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
    static let addCloseFrom: AddCloseFrom? = lookup("posix_spawn_file_actions_addclosefrom_np")

    private static func lookup<Function>(_ name: String) -> Function? {
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }
}
