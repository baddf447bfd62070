import Foundation
import Screens

/// A private directory for the state file, made once per process (under /dev/shm when there is one: this writes a
/// file per input).
let directory: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let path = base + "/multiscreen-fuzz-state-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// Any bytes as state.json through the real loader: a state, or the file set aside with a warning, never a crash.
/// A state that loads is saved and must load back equal; a file set aside must be kept byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let store = StateStore(path: directory + "/state.json")
    try? FileManager.default.removeItem(atPath: directory)
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    guard (try? bytes.write(to: URL(fileURLWithPath: store.path))) != nil else { return 0 }
    let loaded = store.load()
    if let setAside = loaded.setAsidePath {
        precondition(loaded.warning != nil, "set aside without a warning")
        precondition(FileManager.default.contents(atPath: setAside) == bytes, "the set-aside file differs")
        precondition(loaded.state == PersistentState(), "a bad file must give a fresh state")
    } else if size > 0 {
        do {
            try store.save(loaded.state)
        } catch {
            preconditionFailure("cannot save what was loaded: \(error)")
        }
        let again = store.load()
        precondition(again.warning == nil && again.state == loaded.state, "saved then loaded: \(again)")
    }
    return 0
}
