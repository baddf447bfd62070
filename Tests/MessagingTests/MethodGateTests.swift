import Foundation
import Messaging
import Outputs
import Testing

@Suite struct MethodGateTests {
    @Test func oneRefusalWhateverTheTransport() {
        let gate = MethodGate(caller: "a phone", permitted: [.send, .status])
        #expect(throws: Never.self) { try gate.check(.send) }
        #expect(throws: MessageError(.notPermitted, "role.set is not permitted to a phone (permitted: send, status)")) {
            try gate.check(.setRole)
        }
        #expect(throws: MessageError(.notPermitted, "events.subscribe is not permitted to a page (permitted: nothing)"))
        {
            try MethodGate(caller: "a page", permitted: []).check(.subscribeEvents)
        }
    }

    /// A file on the kiosk is named only through the local socket: a config that grants `media.show` (or `media.*`)
    /// to the fleet, a phone or a page grants `media.stop` alone.
    @Test func mediaShowIsNeverGrantedToARemoteCaller() {
        let gate = MethodGate(caller: "the fleet link", permitted: [.showMedia, .stopMedia])
        #expect(gate.permitted == [.stopMedia])
        #expect(
            throws: MessageError(
                .notPermitted,
                "media.show is not permitted to the fleet link: it names a file on the kiosk, which only the local socket may"
            )
        ) { try gate.check(.showMedia) }
        #expect(throws: Never.self) { try gate.check(.stopMedia) }
    }

    /// With media directories, a remote caller granted `media.show` and `playlist.set` names files inside them only:
    /// a path out through `..` or a symbolic link, or a file that is not there, is refused with what is allowed.
    @Test func filesInsideTheMediaDirectoriesOnly() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("media-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/signage/menus", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/private", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/signage/menus/lunch.png", contents: Data([1]))
        FileManager.default.createFile(atPath: root + "/private/secret.png", contents: Data([1]))
        try FileManager.default.createSymbolicLink(
            atPath: root + "/signage/escape.png", withDestinationPath: root + "/private/secret.png")
        let files = try MediaDirectories([root + "/signage"])
        let gate = MethodGate(caller: "the fleet link", permitted: [.showMedia, .setPlaylist], files: files)
        #expect(gate.permitted == [.showMedia, .setPlaylist])
        #expect(throws: Never.self) {
            try gate.check(.showMedia(screen: "A", path: root + "/signage/menus/lunch.png"))
            try gate.check(.showMedia(screen: "A", path: root + "/signage/menus/../menus/lunch.png"))
            try gate.check(
                .setPlaylist(
                    screen: "A",
                    playlist: Playlist(items: [
                        .init(source: root + "/signage/menus/lunch.png", seconds: 5),
                        .init(source: "https://example.org/", seconds: 5),
                    ])))
        }
        let resolved = try #require(realpathOf(root + "/signage"))
        for outside in [
            root + "/private/secret.png", root + "/signage/escape.png", root + "/signage/../private/secret.png",
            root + "/signage/missing.png", root + "/signage", "/etc/passwd",
        ] {
            #expect(
                throws: MessageError(
                    .notPermitted,
                    "\"\(outside)\" is not a file inside the media directories the fleet link may name (\(resolved))"),
                "\(outside)"
            ) { try gate.check(.showMedia(screen: "A", path: outside)) }
        }
        #expect(throws: MessageError.self) {
            try gate.check(
                .setPlaylist(
                    screen: "A", playlist: Playlist(items: [.init(source: root + "/private/secret.png", seconds: 5)])))
        }
        #expect(throws: MessageError(.invalidParams, "media directory \"relative/dir\" is not an absolute path")) {
            try MediaDirectories(["relative/dir"])
        }
        #expect(throws: MessageError.self) { try MediaDirectories([root + "/signage/menus/lunch.png"]) }
    }

    private func realpathOf(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
