import Messaging
import RemoteRequests

/// What the phone remote itself reads from a request (the HTTP parsing is Hummingbird's and SwiftNIO's): any bytes as
/// a form body, as a `Host` line and an `Origin` line, and as a WebSocket text frame. Never a crash, and:
/// - a form that parses, encoded again as a browser would, parses to the same fields;
/// - a request is let through only when its `Host` is an allowed authority and its `Origin` (when sent) is one of
///   them behind http(s) or ws(s);
/// - a frame that does not decode gets an error reply in its own envelope (Multiscreen's or JSON-RPC, with its id)
///   that reads back as that error; one that decodes survives encoding and decoding again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    checkForm(text)
    checkHostPolicy(text)
    checkFrame(bytes)
    return 0
}

private func checkForm(_ text: String) {
    guard let fields = FormBody.parse(text) else { return }
    let again = FormBody.encode(fields)
    precondition(FormBody.parse(again) == fields, "form \(fields) encodes as \(again), which parses differently")
}

private let policy = HostPolicy(host: "0.0.0.0", port: 8080, extraHosts: ["kiosk.local", "10.0.0.7:80"])

private func checkHostPolicy(_ text: String) {
    let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let host = lines.first.map(String.init)
    let origin = lines.count > 1 ? String(lines[1]) : nil
    guard policy.refusal(host: host, origin: origin) == nil else { return }
    precondition(policy.allowedAuthorities.contains(host?.lowercased() ?? ""), "Host \(host ?? "nil") let through")
    if let origin = origin?.lowercased() {
        let allowed = ["http://", "https://", "ws://", "wss://"].contains { scheme in
            origin.hasPrefix(scheme) && policy.allowedAuthorities.contains(String(origin.dropFirst(scheme.count)))
        }
        precondition(allowed, "Origin \(origin) let through")
    }
}

private func checkFrame(_ bytes: [UInt8]) {
    do {
        let decoded = try MessageCodec.decode(bytes: bytes)
        guard case .message(let message) = decoded.request else { return }
        let again = try MessageCodec.decodeRequest(MessageCodec.encodeRequest(message))
        precondition(again == message, "round trip changed \(message) into \(again)")
    } catch let error as MessageCodec.DecodeError {
        guard let line = MessageCodec.encode(.error(error.error), in: error.envelope) else {
            preconditionFailure("an error reply is never dropped, even for a notification: \(error)")
        }
        guard case .object(let reply)? = try? JSONValue.parse(Array(line.utf8)),
            case .object(let body)? = reply["error"]
        else { preconditionFailure("error reply \(line) is not a JSON error object") }
        precondition(body["code"] == .integer(error.error.code.rawValue), "code lost in \(line)")
        precondition(body["message"] == .string(error.error.message), "message changed in \(line)")
        if case .jsonRPC(let id) = error.envelope {
            precondition(reply["id"] == (id ?? .null), "id \(String(describing: id)) lost in \(line)")
        }
    } catch {
        preconditionFailure("decode threw \(error), not a DecodeError")
    }
}
