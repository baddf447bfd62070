import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A router served by HummingbirdCore's `Server`, the way Hummingbird's `Application.run()` serves it, without the
/// services an `Application` always adds: its date cache is a task on a 1 s timer (for the `Date` header), which
/// woke the idle kiosk about ten times a second (the timer, the task running it, the event loop). Here each
/// response's `Date` is formatted as it is written (``HTTPDate``), so with nobody connected the server's threads
/// sleep until a connection or the access gate's own deadline.
///
/// Run ``run()`` in a task; cancelling the task closes the listening socket and every connection, as cancelling an
/// `Application`'s service group does.
struct RouterServer<Context: RequestContext>: Sendable
where Context: InitializableFromSource<ApplicationRequestContextSource> {
    private let service: any Service

    /// - Parameters:
    ///   - server: HTTP/1 with the WebSocket upgrade, over TLS or not (the same builder `Application` takes).
    ///   - onServerRunning: called once the address is bound, with the listening channel.
    init(
        router: Router<Context>, server: HTTPServerBuilder, address: BindAddress, group: any EventLoopGroup,
        logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws {
        let responder = router.buildResponder()
        service = try server.buildServer(
            configuration: ServerConfiguration(address: address), eventLoopGroup: group, logger: logger
        ) { request, writer, channel in
            let context = Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                // As `Application` does: an error the router did not turn into a response is a 500.
                logger.debug("unrecognised error: \(error)")
                response = Response(status: .internalServerError)
            }
            response.headers[.date] = HTTPDate.now
            do {
                try await writer.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Thrown as it is, a parser error would be answered with a second response: end the connection.
                throw ParseErrorWhileWriting()
            }
        } onServerRunning: { channel in
            await onServerRunning(channel)
        }
    }

    /// Serves until the task is cancelled or the address cannot be bound (then it throws).
    func run() async throws { try await service.run() }
}

/// The request turned out malformed while its response was being written: the connection ends without a second
/// response.
private struct ParseErrorWhileWriting: Error {}
