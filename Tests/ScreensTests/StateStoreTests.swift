import Foundation
import Testing

@testable import Screens

@Suite struct StateStoreTests {
    struct Crash: Error {}

    let time = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    func scratch() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    var sample: PersistentState {
        PersistentState(
            roles: ["ACME|Panel|ACME Panel AAA": .controller, "Dell|U2720Q|Dell U2720Q DDD": .external],
            contents: ["Dell|U2720Q|Dell U2720Q DDD": .mirror],
            cards: [Card(id: 2, text: "Gate 4", screen: "DP-1"), Card(id: 3, text: "Wait", screen: nil)],
            messages: [LoggedMessage(id: 9, text: "hello", receivedAt: time, screen: nil)])
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue & 0o777
    }

    @Test func roundTripWithSortedKeysAndISODates() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        try store.save(sample)
        let loaded = store.load()
        #expect(loaded.state == sample)
        #expect(loaded.warning == nil)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.contains("\"receivedAt\" : \"2027-01-15T08:00:00Z\""))
        let keys = ["cards", "contents", "messages", "roles", "version"].map { text.range(of: "\n  \"\($0)\"")! }
        #expect(keys.map(\.lowerBound) == keys.map(\.lowerBound).sorted(), "top-level keys sorted")
        #expect(try mode(store.path) == 0o600)
    }

    @Test func missingFileGivesAFreshStateSilently() {
        let loaded = StateStore(path: "/nonexistent-\(UUID())/state.json").load()
        #expect(loaded.state == PersistentState())
        #expect(loaded.warning == nil)
        #expect(loaded.state.version == 1)
    }

    @Test func createsTheDirectoryWithMode0700() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/xdg-state/multiscreen/state.json")
        try store.save(PersistentState())
        #expect(try mode(directory + "/xdg-state/multiscreen") == 0o700)
        #expect(try mode(directory + "/xdg-state") == 0o700)
        #expect(store.load().state == PersistentState())
    }

    @Test func aCrashBeforeTheRenameLeavesTheOldFileIntact() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var store = StateStore(path: directory + "/state.json")
        try store.save(PersistentState())
        let old = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let path = store.path
        store.beforeRename = { temporary in
            // The new state is complete on disk, beside the target, and the target is still the old file.
            #expect((temporary as NSString).deletingLastPathComponent == directory)
            #expect(temporary != path)
            let written = try Data(contentsOf: URL(fileURLWithPath: temporary))
            #expect(written != old)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == old)
            throw Crash()
        }
        #expect(throws: StateStoreError.self) { try store.save(sample) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == old)
        #expect(store.load().state == PersistentState())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["state.json"], "temp removed")
    }

    /// Reliability R10: a state file cut short at every byte offset (a full disk, a power cut on a file system that
    /// does not order writes) never crashes the loader, is set aside, never read as something else, and the next
    /// save starts clean.
    @Test func aFileTruncatedAtEveryOffsetIsSetAsideNeverMisread() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        try store.save(sample)
        let whole = try Data(contentsOf: URL(fileURLWithPath: store.path))
        for length in 0..<whole.count - 1 {
            try whole.prefix(length).write(to: URL(fileURLWithPath: store.path))
            let loaded = store.load(now: time.addingTimeInterval(Double(length)))
            #expect(loaded.state == PersistentState() || loaded.state == sample, "cut at \(length)")
            if loaded.state != sample {
                #expect(loaded.warning != nil, "cut at \(length): reported")
                #expect(loaded.setAsidePath.map { FileManager.default.fileExists(atPath: $0) } == true)
            }
        }
        try store.save(sample)
        #expect(store.load().state == sample)
    }

    /// A power cut between the write and the rename: the old file is whole and the temporary file is cleaned up
    /// at the next start.
    @Test func aTemporaryFileLeftByAPowerCutIsRemovedAtLoad() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        try store.save(sample)
        try Data("{\"version\":1,\"ro".utf8).write(to: URL(fileURLWithPath: directory + "/.state.json.tmp-4242-77"))
        #expect(store.load().state == sample)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["state.json"])
    }

    @Test func theTargetIsReplacedByRenameNotRewritten() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        try store.save(PersistentState())
        let before = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as! NSNumber
        try store.save(sample)
        let after = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as! NSNumber
        #expect(before != after, "a new inode: the old file was never opened for writing")
        #expect(store.load().state == sample)
    }

    @Test(arguments: [
        ("{\"version\": 1, \"roles\": ", "is not valid JSON"),
        ("{\"theme\": \"dark\", \"fontSize\": 12}", "is not a Multiscreen state file"),
        ("[1, 2, 3]", "is not a Multiscreen state file"),
        ("{\"version\": 2, \"roles\": {}, \"contents\": {}, \"cards\": [], \"messages\": []}", "has version 2"),
        ("{\"version\": 1, \"roles\": {}, \"contents\": {}, \"cards\": []}", "missing \"messages\""),
        (
            "{\"version\": 1, \"roles\": {\"k\": \"Bad Role\"}, \"contents\": {}, \"cards\": [], \"messages\": []}",
            "invalid role name"
        ),
    ])
    func badFilesAreSetAsideAndReported(content: String, reason: String) throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        try content.write(toFile: store.path, atomically: false, encoding: .utf8)
        let loaded = store.load(now: time)
        #expect(loaded.state == PersistentState())
        let aside = directory + "/state.json.corrupt-20270115T080000Z"
        #expect(loaded.setAsidePath == aside)
        #expect(loaded.warning?.contains(reason) == true, "\(loaded.warning ?? "no warning")")
        #expect(loaded.warning?.contains(aside) == true)
        #expect(try String(contentsOfFile: aside, encoding: .utf8) == content, "the bad file is kept, byte for byte")
        #expect(!FileManager.default.fileExists(atPath: store.path))
        // Again in the same second: a second name, the first one untouched.
        try content.write(toFile: store.path, atomically: false, encoding: .utf8)
        #expect(store.load(now: time).setAsidePath == aside + "-2")
        // And the next save works.
        try store.save(sample)
        #expect(store.load().state == sample)
    }

    @Test func defaultPathFollowsXDG() {
        #expect(
            StateStore.defaultPath(environment: ["XDG_STATE_HOME": "/var/lib/kiosk/", "HOME": "/home/k"])
                == "/var/lib/kiosk/multiscreen/state.json")
        #expect(
            StateStore.defaultPath(environment: ["HOME": "/home/k"]) == "/home/k/.local/state/multiscreen/state.json")
        #expect(StateStore.utcStamp(time) == "20270115T080000Z")
    }

    @Test func pagesOpenedOrClosedAtRunTimeRoundTripAndOlderFilesHaveNone() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        var state = sample
        state.pages = ["HDMI-A-1": "file:///srv/app/main.html", "DP-2": "https://signage.example.org/"]
        state.closedPages = ["DP-3"]
        try store.save(state)
        #expect(store.load().state == state)
        // A file from before pages were saved: no pages, nothing set aside.
        try store.save(sample)
        let older = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!older.contains("pages"))
        let loaded = store.load()
        #expect(loaded.state.pages == nil && loaded.state.closedPages == nil && loaded.warning == nil)
    }

    @Test func aPageWithABadURLSetsTheFileAside() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = StateStore(path: directory + "/state.json")
        var state = sample
        state.pages = ["DP-2\u{7}": "javascript:alert(1)"]
        try store.save(state)
        let loaded = store.load(now: time)
        #expect(loaded.state == PersistentState())
        #expect(loaded.warning?.contains("is damaged: the page of \"DP-2\\u{07}\":") == true, "\(loaded.warning ?? "")")
    }
}
