import ArgumentParser
import Foundation
import Messaging
import Remote

/// `multiscreen events [--socket PATH] [--count N] [--timeout SECONDS]`: the event stream of a running
/// Multiscreen (role changes and whatever else its display thread publishes), one JSON line per event.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the events of a running Multiscreen as they happen, one JSON line each.",
        discussion: """
            Each line is {"method": "<event>", "params": {...}}, printed and flushed as it arrives. A reader too \
            slow to keep up loses events rather than slowing Multiscreen down; it is then told how many with \
            {"method": "events.dropped", "params": {"count": N}}.

            Exit status: 0 when --count events arrived, or, without --count, when --timeout passed or Multiscreen \
            closed the connection; 1 when nothing listens at the socket, the subscription got no reply, or --count \
            was not reached before --timeout or the end of the connection; 2 when Multiscreen refused the \
            subscription (an error reply, printed to standard error); 64 for a usage error.
            """)

    @Option(help: ControlOptions.socketHelp)
    var socket: String?

    @Option(help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Stop after this many seconds (default: never).", valueName: "seconds"))
    var timeout: Double?

    /// How long connecting and the subscription's reply may take.
    private static let subscribeTimeoutMilliseconds = 5000

    func validate() throws {
        if let count, count <= 0 { throw ValidationError("--count takes a positive number") }
        if let timeout, !(timeout > 0 && timeout <= 86_400 * 365) {
            throw ValidationError("--timeout takes 0 < seconds ≤ one year")
        }
    }

    func run() throws {
        let path: String
        do {
            path = try socket ?? ControlSocket.defaultPath(environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ControlExit.noReply)
        }
        let duration = timeout.map { Int(($0 * 1000).rounded(.up)) }
        let client = ControlClient(
            path: path, timeoutMilliseconds: min(duration ?? Int.max, Self.subscribeTimeoutMilliseconds))
        var printed = 0
        let end: ControlClient.EventStreamEnd
        do {
            end = try client.events(durationMilliseconds: duration) { line in
                print(line)
                fflush(nil)  // stdout, when it is a pipe: each event as it comes, not per 4 KB
                printed += 1
                return count.map { printed < $0 } ?? true
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(ControlExit.noReply)
        }
        switch end {
        case .stopped:
            return
        case .timedOut, .closed:
            guard let count, printed < count else { return }
            let why = end == .closed ? "\(path) closed the connection" : "the timeout passed"
            printError("error: \(why) after \(printed) of \(count) events")
            throw ExitCode(ControlExit.noReply)
        case .refused(let error):
            printError("error \(error.code.rawValue): \(error.message.logSafe)")
            throw ExitCode(ControlExit.errorReply)
        }
    }

    private func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
