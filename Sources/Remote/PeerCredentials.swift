#if canImport(Glibc)
    import Glibc
#endif

/// The connecting process as the kernel saw it at `connect` (`SO_PEERCRED`): not forgeable by the peer.
///
/// Declared here because Glibc's Swift module hides `struct ucred` behind `_GNU_SOURCE`; its layout (`pid_t`,
/// `uid_t`, `gid_t`) is part of the Linux ABI.
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0

    /// nil when the socket has no peer credentials (not a connected Unix socket).
    init?(of descriptor: Int32) {
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        let result = withUnsafeMutablePointer(to: &self) { pointer in
            getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, pointer, &length)
        }
        if result != 0 || length != socklen_t(MemoryLayout<PeerCredentials>.size) { return nil }
    }
}
