#if canImport(Glibc)
    import Glibc
#endif

/// The directories a remote caller (the fleet) may name files in, for `media.show`, `playlist.set` and an interrupt's
/// own items. A path is
/// inside when, with every symbolic link and `..` resolved (`realpath`), it lies under one of them: a link inside
/// that points out, or `/srv/media/../../etc/passwd`, is outside. The local socket's user is not confined (they may
/// read any file they can anyway).
public struct MediaDirectories: Sendable, Equatable {
    /// Canonical absolute paths, without a trailing slash.
    public private(set) var directories: [String]

    /// - Throws: a description of the first entry that is not an absolute path to an existing directory.
    public init(_ paths: [String]) throws(MessageError) {
        directories = []
        for path in paths {
            guard path.hasPrefix("/") else {
                throw MessageError(.invalidParams, "media directory \"\(path)\" is not an absolute path")
            }
            guard let resolved = Self.resolve(path), Self.isDirectory(resolved) else {
                throw MessageError(.invalidParams, "media directory \"\(path)\" is not an existing directory")
            }
            directories.append(resolved == "/" ? "" : resolved)
        }
    }

    /// - Throws: `notPermitted` when `path` is not a file inside one of the directories (naming them, so the operator
    ///   can tell what is allowed).
    public func check(_ path: String, caller: String) throws(MessageError) {
        if let resolved = Self.resolve(path), directories.contains(where: { resolved.hasPrefix($0 + "/") }) { return }
        let list = directories.map { $0.isEmpty ? "/" : $0 }.joined(separator: ", ")
        throw MessageError(
            .notPermitted,
            "\"\(path)\" is not a file inside the media directories \(caller) may name (\(list.isEmpty ? "none" : list))"
        )
    }

    /// The paths of local files a message names (a playlist's URLs are not files).
    public static func paths(in message: Message) -> [String] {
        switch message {
        case .showMedia(_, let path, _, _, _, _, _): [path]
        case .setPlaylist(_, let playlist): playlist.items.map(\.source).filter { $0.hasPrefix("/") }
        case .interruptPlaylist(_, let request): request.paths
        default: []
        }
    }

    private static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
