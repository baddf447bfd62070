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

    /// `playlist.interrupt` may be granted to a remote caller: naming a config playlist names no file, so it passes;
    /// its own items are `playlist.set`'s, refused without media directories and checked against them with.
    @Test func anInterruptNamesFilesOnlyWithItemsOfItsOwn() throws {
        let gate = MethodGate(caller: "the fleet link", permitted: [.interruptPlaylist])
        #expect(gate.permitted == [.interruptPlaylist])
        #expect(throws: Never.self) {
            try gate.check(.interruptPlaylist(screen: "A", request: .start(source: .named("fire-drill"), seconds: 60)))
            try gate.check(.interruptPlaylist(screen: "A", request: .clear))
        }
        for source in ["/srv/signage/drill.png", "https://example.org/drill"] {
            #expect(
                throws: MessageError(
                    .notPermitted,
                    "playlist.interrupt with \"items\" is not permitted to the fleet link: they name files on the kiosk, which only the local socket may (a config playlist, by \"playlist\", may be named)"
                ), "\(source)"
            ) {
                try gate.check(
                    .interruptPlaylist(
                        screen: "A", request: .start(source: .items([.init(source: source, seconds: 5)]))))
            }
        }
        #expect(throws: MessageError.self, "not granted: refused whatever it names") {
            try MethodGate(caller: "a phone", permitted: [.send]).check(
                .interruptPlaylist(screen: "A", request: .start(source: .named("fire-drill"))))
        }

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("media-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/signage", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/signage/drill.png", contents: Data([1]))
        let fleet = MethodGate(
            caller: "the fleet link", permitted: [.interruptPlaylist], files: try MediaDirectories([root + "/signage"]))
        #expect(throws: Never.self) {
            try fleet.check(
                .interruptPlaylist(
                    screen: "A",
                    request: .start(source: .items([.init(source: root + "/signage/drill.png", seconds: 5)]))))
        }
        #expect(throws: MessageError.self) {
            try fleet.check(
                .interruptPlaylist(
                    screen: "A", request: .start(source: .items([.init(source: "/etc/passwd", seconds: 5)]))))
        }
    }

    private func realpathOf(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
