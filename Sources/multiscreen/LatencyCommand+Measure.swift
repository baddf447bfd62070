import ArgumentParser
import CompositorHarness
import Foundation
import LatencyReport
import Logging
import Messaging
import Outputs
import Remote

/// One measured run: wait for the screens to settle, follow the `frame.shown` events, send the messages, and make
/// the report from what was shown and the status counters before and after.
extension LatencyCommand {
    /// One run: starts the embedded session if asked, measures, stops it. - Throws: `ExitCode(1)` when
    /// Multiscreen cannot be started or reached.
    func measure(pacing: String, withReference reference: Bool, logger: Logger) throws -> LatencyRun {
        var session: EmbeddedSession?
        defer { session?.stop() }
        let path: String
        do {
            if let embedded {
                let flashArguments =
                    flash ? ["--flash", "--flash-size", "\(flashSize)", "--flash-corner", flashCorner] : []
                session = try EmbeddedSession(
                    compositor: embedded, outputs: outputs, width: width, height: height,
                    logLevel: logging.logLevel, runArguments: ["--pacing", pacing] + flashArguments, logger: logger)
                path = session!.socket
            } else {
                path = try socket ?? ControlSocket.defaultPath(environment: ProcessInfo.processInfo.environment)
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        let client = ControlClient(path: path)
        var before: [String: JSONValue] = [:]
        do {
            // Until every screen has had a frame presented (1 s at most: sway 1.7 headless never presents), so that
            // a screen's first message is not measured before it is known whether its compositor sends `presented`
            // (until then the frame callback answers, labelled `frameDone`).
            let deadline = Date(timeIntervalSinceNow: 1)
            repeat {
                before = try status(client)
                let screens = before["screens"].map(Self.screens) ?? []
                if !screens.isEmpty && screens.allSatisfy({ $0.presented > 0 }) { break }
                usleep(20_000)  // polling the status, bounded by the deadline
            } while Date() < deadline
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        let screens = before["screens"].map(Self.screens) ?? []
        // What the running Multiscreen does, from its status (one before issue 9 says nothing: trust --pacing).
        var measuredPacing = pacing
        if case .string(let running)? = before["pacing"] { measuredPacing = running }
        var runningFlash = flash
        if case .bool(let on)? = before["flash"] { runningFlash = on }
        // A blank screen shows no message; every other kind does (the controller in its log).
        let watched = screens.filter { $0.content != "blank" }
        guard !watched.isEmpty else {
            printError("error: no screen shows messages (every screen is blank, or there are no outputs)")
            throw ExitCode(1)
        }
        let collector = EventCollector()
        let stream = Thread {
            _ = try? client.events(subscribed: { collector.subscribed() }) { line in
                if let event = try? MessageCodec.decodeEvent(line) { collector.add(event) }
                return !collector.isFinished
            }
            collector.streamEnded()
        }
        stream.start()
        guard collector.waitForSubscription(timeout: 5) else {
            printError("error: \(path) did not confirm the event subscription")
            throw ExitCode(1)
        }

        var references: [ReferenceRun] = []
        var referenceNote: String?
        if reference {
            do {
                let environment = session?.compositor.environment ?? [:]
                references = try ["-p", "-f"].map { try Self.runReference(mode: $0, environment: environment) }
            } catch {
                referenceNote = "reference client not measured: \(error)"
                logger.warning("\(referenceNote!)")
            }
        }

        let period = watched.map(\.refreshNanoseconds).filter { $0 > 0 }.max() ?? 16_666_667
        let names = watched.map(\.name)
        let progress = isatty(STDERR_FILENO) != 0
        var sent: [UInt64] = []
        for index in 1...messages {
            // A random phase of the refresh cycle: the message lands anywhere between two vblanks.
            usleep(UInt32(UInt64.random(in: 0..<period) / 1000))
            let reply: Reply
            do {
                reply = try client.request(.send(text: "latency \(index)/\(messages)", screen: nil))
            } catch {
                printError("\nerror: \(error)")
                throw ExitCode(1)
            }
            guard case .result(_, let result) = reply, case .integer(let id)? = result["id"] else {
                printError("\nerror: send refused: \(reply)")
                throw ExitCode(1)
            }
            sent.append(UInt64(id))
            if !backToBack && !collector.waitUntilAccounted(UInt64(id), on: names, timeout: messageTimeout) {
                logger.warning("message #\(id) not accounted for on every output within \(messageTimeout) s")
            }
            if progress && (index % 10 == 0 || index == messages) {
                FileHandle.standardError.write(Data("\rlatency: \(index)/\(messages) messages".utf8))
            }
        }
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
        if backToBack, let last = sent.last, !collector.waitUntilAccounted(last, on: names, timeout: messageTimeout) {
            logger.warning("the last message was not accounted for on every output within \(messageTimeout) s")
        }
        collector.finish()
        let after = (try? status(client)) ?? [:]
        let afterScreens = after["screens"].map(Self.screens) ?? []

        var run = LatencyRun(
            compositor: embedded ?? "session",
            sent: sent,
            outputs: watched.map { screen in
                let end = afterScreens.first { $0.name == screen.name }
                let frames = end.map {
                    FrameCounts(
                        committed: $0.committed - screen.committed, presented: $0.presented - screen.presented,
                        discarded: $0.discarded - screen.discarded,
                        missedVblanks: $0.missedVblanks - screen.missedVblanks)
                }
                return OutputReport(
                    name: screen.name, modeRefreshNanoseconds: screen.refreshNanoseconds, expected: sent,
                    shown: collector.shown(on: screen.name), frames: frames)
            })
        run.pacing = measuredPacing
        if measuredPacing != pacing {
            run.notes.append(
                "--pacing \(pacing) asked for, but Multiscreen runs with \(measuredPacing): reported as such")
        }
        run.backToBack = backToBack
        run.reference = references
        run.flash = runningFlash
        if flash && !runningFlash {
            run.notes.append("--flash asked for, but Multiscreen runs without it: start it with run --flash")
        }
        if let referenceNote { run.notes.append(referenceNote) }
        for output in run.outputs where !output.presentedAvailable {
            run.notes.append(
                "\(output.name): the compositor sent no wp_presentation `presented` (sway 1.7 headless never does): "
                    + "its figures are message → frame callback (`frameDone`), not a presentation time")
        }
        return run
    }

    /// `weston-presentation-shm MODE` until it has printed 100 frames (30 s at most), then stopped.
    static func runReference(mode: String, environment: [String: String]) throws -> ReferenceRun {
        let client = try ChildProcess("weston-presentation-shm", [mode], environment: environment)
        defer { client.kill() }
        var run = ReferenceRun(mode: mode, commitToPresent: [], presentToPresent: [])
        try waitUntil(timeout: 30, "100 frames of weston-presentation-shm \(mode)") {
            if let status = client.exitStatus {
                throw HarnessError("weston-presentation-shm \(mode) exited with status \(status): \(client.output)")
            }
            run = ReferenceRun.parse(mode: mode, output: client.output)
            return run.commitToPresent.count >= 100
        }
        return run
    }

    private func status(_ client: ControlClient) throws -> [String: JSONValue] {
        guard case .result(_, let result) = try client.request(.status) else {
            throw HarnessError("status refused")
        }
        return result
    }

    /// The screens in a `status` document, with the counters the report takes differences of.
    struct ScreenStatus {
        var name: String
        var content: String?
        var refreshNanoseconds: UInt64
        var committed = 0
        var presented = 0
        var discarded = 0
        var missedVblanks = 0
    }

    static func screens(_ value: JSONValue) -> [ScreenStatus] {
        guard case .array(let screens) = value else { return [] }
        return screens.compactMap { screen in
            let s = screen.objectValue
            guard case .string(let name)? = s["name"] else { return nil }
            var content: String?
            if case .string(let c)? = s["content"] { content = c }
            var refresh: UInt64 = 0
            if case .integer(let mHz)? = s["refreshMilliHertz"], mHz > 0 { refresh = UInt64(1e12 / Double(mHz)) }
            var status = ScreenStatus(name: name, content: content, refreshNanoseconds: refresh)
            let frames = s["frames"]?.objectValue ?? [:]
            let int: (JSONValue?) -> Int = { if case .integer(let n)? = $0 { return n } else { return 0 } }
            status.committed = int(frames["committed"])
            status.presented = int(frames["presented"])
            status.discarded = int(frames["discarded"])
            status.missedVblanks = int(s["latency"]?.objectValue["missedVblanks"])
            return status
        }
    }

}
