import CompositorHarness
import Foundation
import Messaging
import Synchronization
import Testing

@testable import Remote

/// A private directory for one test's socket, removed afterwards.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/remote-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var socketPath: String { path + "/control.sock" }
}

/// The display thread's part, played by a test: drains the bus and answers every message from the server with
/// `{"method": m, "result": {"ok": true, "text": <the message's text, if any>}}`. Pausable, to pile up requests.
final class FakeDisplay: Sendable {
    private struct State {
        var paused: Bool
        var running = true
        var received: [Message] = []
    }

    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)

    init(bus: MessageBus, server: ControlServer, paused: Bool = false) {
        state = Mutex(State(paused: paused))
        let thread = Thread { [self] in
            let consumer = bus.makeConsumer()
            while state.withLock({ $0.running }) {
                consumer.waitForMessages(timeoutMilliseconds: 5)
                if state.withLock({ $0.paused }) { continue }
                consumer.drain { received in
                    state.withLock { $0.received.append(received.message) }
                    received.replyTo?.deliver(Self.reply(to: received.message))
                }
            }
            finished.signal()
        }
        thread.start()
    }

    static func reply(to message: Message) -> Reply {
        var result: [String: JSONValue] = ["ok": .bool(true)]
        switch message {
        case .send(let text, _, _), .openCard(_, let text): result["text"] = .string(text)
        default: break
        }
        return .result(method: message.method, result: result)
    }

    func resume() { state.withLock { $0.paused = false } }

    var received: [Message] { state.withLock { $0.received } }

    func stop() {
        state.withLock { $0.running = false }
        finished.wait()
    }
}

/// A server on a fresh socket, with its bus and fake display.
struct ControlFixture {
    let directory = TemporaryDirectory()
    let bus: MessageBus
    let server: ControlServer
    let display: FakeDisplay

    init(paused: Bool = false, options: ControlServer.Options = ControlServer.Options()) throws {
        bus = try MessageBus()
        server = try ControlServer(path: directory.socketPath, bus: bus, options: options)
        display = FakeDisplay(bus: bus, server: server, paused: paused)
    }

    var path: String { directory.socketPath }

    func connect() throws -> TestConnection { try TestConnection(path: path) }

    func tearDown() {
        server.stop()
        display.stop()
    }
}

/// A raw blocking client connection, to pipeline requests and read replies line by line.
typealias TestConnection = LineConnection

extension LineConnection {
    func request(_ message: Message) { write(MessageCodec.encodeRequest(message) + "\n") }

    func readResponse(timeout: Double = 3) throws -> Reply {
        guard let line = try readLine(timeout: timeout) else { throw HarnessError("end of stream") }
        return try MessageCodec.decodeResponse(line)
    }
}

/// Waits until `condition` holds, polling; false after `timeout` seconds.
func eventually(timeout: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}

/// The result a ``FakeDisplay`` gives to `send(text)`.
func sent(_ text: String) -> Reply {
    .result(method: .send, result: ["ok": .bool(true), "text": .string(text)])
}

/// The error code of a response, or nil for a result.
func errorCode(_ response: Reply) -> MessageError.Code? {
    if case .error(let error) = response { return error.code }
    return nil
}
