import ArgumentParser
import Foundation
import Messaging
import Remote

/// `--socket`, `--timeout` and `--request-id`, and the requests each control command makes (one, or a batch sent at
/// once): shared by every command that talks to a running Multiscreen over its control socket.
struct ControlOptions: ParsableArguments {
    /// The `--socket` help, shared with `events`.
    static let socketHelp = ArgumentHelp(
        "The control socket (default: $MULTISCREEN_SOCKET, else "
            + "$XDG_RUNTIME_DIR/multiscreen/<basename of $WAYLAND_DISPLAY, or wayland-0>.sock).",
        valueName: "path")

    @Option(help: socketHelp)
    var socket: String?

    @Option(help: ArgumentHelp("Seconds to wait for the reply.", valueName: "seconds"))
    var timeout: Double = 5

    @Option(
        help: ArgumentHelp(
            "An id for this request (1-64 printable ASCII characters): sent again with the same id, a request is "
                + "answered and not applied twice (default: a fresh one each run).", valueName: "id"))
    var requestId: String?

    func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout takes 0 < seconds ≤ 3600") }
        if let requestId {
            do throws(MessageError) {
                try MessageCodec.validateRequestID(requestId)
            } catch {
                throw ValidationError("--request-id: \(error.message)")
            }
        }
    }

    /// `--request-id` with the `.N` a batch of `count` requests appends to it is still a valid id.
    func validateBatch(of count: Int) throws {
        guard count > 1, let requestId else { return }
        do throws(MessageError) {
            try MessageCodec.validateRequestID("\(requestId).\(count)")
        } catch {
            throw ValidationError("--request-id with \(count) requests (\"\(requestId).\(count)\"): \(error.message)")
        }
    }

    /// Sends `message`, then prints `headline` and the result, one field per indented line: what every command that
    /// changes something prints.
    func perform(_ message: Message, headline: String) throws {
        let result = try request(message)
        print(headline)
        for line in ResultText.lines(of: result, indent: "  ") { print(line) }
    }

    /// Sends every message at once (none waits for the answer to the one before: ``ControlClient/requests(_:)``), then
    /// prints each one's headline and result in order, or its error. Given `--request-id`, the requests get it with
    /// `.1`, `.2`… appended (``validateBatch(of:)``). Exits 2 after printing them all when any was answered with an error; 1 or 3 as ``request(_:)``.
    func performAll(_ batch: [(message: Message, headline: String)]) throws {
        guard batch.count > 1 else {
            for (message, headline) in batch { try perform(message, headline: headline) }
            return
        }
        let ids = batch.indices.map { index in requestId.map { "\($0).\(index + 1)" } }
        var failed = false
        for ((_, headline), response) in zip(batch, try send(zip(batch, ids).map { ($0.0.message, $0.1) })) {
            switch response {
            case .result(_, let result):
                print(headline)
                for line in ResultText.lines(of: result, indent: "  ") { print(line) }
            case .error(let error):
                printError("error \(error.code.rawValue) (\(headline.logSafe)): \(error.message.logSafe)")
                failed = true
            }
        }
        if failed { throw ExitCode(ControlExit.errorReply) }
    }

    /// Sends `message` and returns the result object. Prints the failure to standard error and exits 1 (no
    /// reply) or 2 (an error reply) otherwise, as ``ControlExit`` documents.
    func request(_ message: Message) throws -> [String: JSONValue] {
        switch try send([(message, requestId)])[0] {
        case .result(_, let result):
            return result
        case .error(let error):
            // The message may quote what was asked for (a screen name), control characters included.
            printError("error \(error.code.rawValue): \(error.message.logSafe)")
            throw ExitCode(ControlExit.errorReply)
        }
    }

    /// Sends the requests at once and returns their replies in order. Prints a failure to get them to standard error
    /// and exits 1 (no reply) or 3 (sent, no reply in time), as ``ControlExit`` documents.
    private func send(_ batch: [(message: Message, requestID: String?)]) throws -> [Reply] {
        let path: String
        do {
            path = try socket ?? ControlSocket.defaultPath(environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ControlExit.noReply)
        }
        let client = ControlClient(path: path, timeoutMilliseconds: Int((timeout * 1000).rounded(.up)))
        do {
            return try client.requests(batch)
        } catch .timedOut(let path, let milliseconds) {
            // Sent, and perhaps applied later (the display thread was busy): a script must not simply send it again.
            printError(
                "error: no reply from \(path) within \(milliseconds) ms; the request may still be applied: "
                    + "check `multiscreen status`, or send it again with the same --request-id")
            throw ExitCode(ControlExit.unknownOutcome)
        } catch .closedBeforeReply(let path) {
            printError(
                "error: \(path) closed the connection before replying; the request may have been applied: "
                    + "check `multiscreen status`, or send it again with the same --request-id")
            throw ExitCode(ControlExit.unknownOutcome)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ControlExit.noReply)
        }
    }

    func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// The exit statuses of the control commands, and the help text that documents them.
enum ControlExit {
    /// No reply: nothing listening at the socket, the request could not be sent in time, a malformed reply, no
    /// socket path.
    static let noReply: Int32 = 1
    /// Multiscreen replied with an error.
    static let errorReply: Int32 = 2
    /// The request was sent and no reply came (in time, or before the connection closed): it may be applied.
    static let unknownOutcome: Int32 = 3

    static let discussion: String = {
        let codes = MessageError.Code.allCases.map { "\($0.rawValue) \($0.name)" }.joined(separator: ", ")
        return """
            Exit status: 0 when Multiscreen carried out the request and the result is printed; 1 when no reply \
            came (nothing listening at the socket, the request not sent within --timeout, a malformed reply); 2 \
            when Multiscreen answered with an error, printed to standard error as `error CODE: message` (codes: \
            \(codes)); 3 when the request was sent and no reply came (within --timeout, or the connection closed \
            first): it may be applied, so check, or send it again with the same --request-id, which applies it \
            once; 64 for a usage error.
            """
    }()
}

/// A result object as indented `key: value` lines, keys sorted: readable without a JSON tool, stable for scripts
/// that grep it (scripts should prefer `status --json`). Strings are printed with control characters escaped:
/// message texts come from anyone who may send (a phone, a fleet operator) and must not drive the terminal.
enum ResultText {
    static func lines(of result: [String: JSONValue], indent: String = "") -> [String] {
        var lines: [String] = []
        for key in result.keys.sorted() {
            append(result[key]!, label: "\(indent)\(key):", indent: indent + "  ", to: &lines)
        }
        return lines
    }

    private static func append(_ value: JSONValue, label: String, indent: String, to lines: inout [String]) {
        switch value {
        case .object(let members) where !members.isEmpty:
            lines.append(label)
            lines += Self.lines(of: members, indent: indent)
        case .array(let elements) where !elements.isEmpty:
            lines.append(label)
            for element in elements {
                if case .object(let members) = element, !members.isEmpty {
                    // "- first: value" then the other keys aligned under it, as YAML writes a list of maps.
                    let nested = Self.lines(of: members, indent: indent + "  ")
                    lines.append(indent + "- " + nested[0].dropFirst(indent.count + 2))
                    lines += nested.dropFirst()
                } else {
                    append(element, label: indent + "-", indent: indent + "  ", to: &lines)
                }
            }
        default:
            lines.append("\(label) \(scalar(value))")
        }
    }

    private static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text.logSafe
        case .object: "{}"
        case .array: "[]"
        default: value.serialized
        }
    }
}
