import Foundation
import Messaging
import Screens

/// The display thread's side of the message bus: drain everything, apply in order, answer, render once.
extension Application {
    /// Applies every message available now. Bursts coalesce: the screens they touch are marked dirty, and the
    /// render pass that follows draws the final state once.
    func drainMessages() {
        let drainedAt = Clock.nanoseconds()
        let applied = consumer.drain { received in apply(received, drainedAt: drainedAt) }
        messagesApplied += applied
        if applied > 0 { controllerDirty = true }
    }

    private func apply(_ received: ReceivedMessage, drainedAt: UInt64) {
        let reply: String
        do {
            reply = try perform(received.message, enqueuedAt: received.enqueuedAt, drainedAt: drainedAt)
        } catch let error as MessageError {
            logger.notice("refused \(received.message.method.rawValue): \(error.message)")
            reply = MessageCodec.encodeError(error)
        } catch {
            reply = MessageCodec.encodeError(MessageError(.invalidParams, "\(error)"))
        }
        if let control, received.producerID == control.producerID { control.reply(reply) }
    }

    /// Carries out one message. - Returns: the reply line. - Throws: ``MessageError`` for the sender.
    private func perform(_ message: Message, enqueuedAt: UInt64, drainedAt: UInt64) throws -> String {
        switch message {
        case .send(let text, let screen):
            let logged: LoggedMessage
            do {
                logged = try model.receive(text: text, screen: screen)
            } catch {
                throw MessageError(.invalidParams, error.description)
            }
            stateChanged = true
            let stamp = (id: logged.id, enqueuedAt: enqueuedAt, drainedAt: drainedAt)
            for target in screens.values where screen == nil || target.output.displayName == screen {
                target.invalidateIfShowingMessages(message: stamp)
            }
            logger.info("message #\(logged.id) for \(screen ?? "every screen"): \(logged.text.prefix(80))")
            publishEvent(
                "message.received",
                [
                    "id": .integer(Int(logged.id)), "text": .string(logged.text),
                    "screen": screen.map { .string($0) } ?? .null,
                ])
            return MessageCodec.encodeResult(
                method: .send, result: ["id": .integer(Int(logged.id)), "screen": screen.map { .string($0) } ?? .null])
        case .openCard(let screen, let text):
            let card: Card
            do {
                card = try model.openCard(text: text, onScreen: screen)
            } catch {
                throw MessageError(.invalidParams, "\(error)")
            }
            stateChanged = true
            apply(model.assignment)
            screens.values.first { $0.output.displayName == screen }?.invalidate()
            logger.info("card #\(card.id) opened on \(screen)")
            publishEvent(
                "card.opened", ["id": .integer(Int(card.id)), "screen": .string(screen), "text": .string(text)])
            return MessageCodec.encodeResult(
                method: .openCard, result: ["id": .integer(Int(card.id)), "screen": .string(screen)])
        case .closeCard(let screen):
            let card: Card
            do {
                card = try model.closeCard(onScreen: screen)
            } catch {
                throw MessageError(.invalidParams, "\(error)")
            }
            stateChanged = true
            screens.values.first { $0.output.displayName == screen }?.invalidate()
            logger.info("card #\(card.id) closed on \(screen)")
            publishEvent("card.closed", ["id": .integer(Int(card.id)), "screen": .string(screen)])
            return MessageCodec.encodeResult(
                method: .closeCard, result: ["id": .integer(Int(card.id)), "screen": .string(screen)])
        case .setRole(let screen, let roleName):
            guard let role = ScreenRole.validated(roleName) else {
                throw MessageError(
                    .invalidParams, "\"role\" must be a lowercase word such as controller or external, not \(roleName)")
            }
            do {
                apply(try model.set(role: role, forScreen: screen))
            } catch {
                throw MessageError(.invalidParams, error.description)
            }
            stateChanged = true
            return MessageCodec.encodeResult(
                method: .setRole, result: ["screen": .string(screen), "role": .string(role.rawValue)])
        case .status:
            return MessageCodec.encodeResult(method: .status, result: statusReport)
        case .outputs:
            return MessageCodec.encodeResult(
                method: .outputs, result: ["outputs": .array(tracker.outputs.map(Self.json))])
        }
    }

    /// Everything `multiscreen status` shows: screens with role, mode and frame statistics, cards, the recent
    /// log, and the bus counters (nothing dropped silently: rejected-full is counted here).
    var statusReport: [String: JSONValue] {
        let bus = bus.statistics
        let screenList: [JSONValue] = tracker.outputs.map { info in
            var entry = Self.json(info).objectValue
            if let screen = screens[info.registryName] {
                switch screen.kind {
                case .controller: entry["role"] = .string("controller")
                case .external(let mode):
                    entry["role"] = .string(model.assignment.roles[info.registryName]?.rawValue ?? "external")
                    entry["content"] = .string(mode.rawValue)
                }
                let s = screen.statistics
                entry["frames"] = .object([
                    "committed": .integer(s.committed), "presented": .integer(s.presented),
                    "discarded": .integer(s.discarded), "frameDoneFallbacks": .integer(s.frameDoneFallbacks),
                    "latencyMedianMs": s.rollingMedianNanoseconds.map { .number(Double($0) / 1e6) } ?? .null,
                ])
            }
            return .object(entry)
        }
        var result: [String: JSONValue] = [
            "screens": .array(screenList),
            "controller": model.assignment.controller.flatMap { tracker[$0]?.displayName }.map { .string($0) }
                ?? .null,
            "cards": .array(
                model.cards.cards.map { card in
                    .object([
                        "id": .integer(Int(card.id)), "text": .string(card.text),
                        "screen": card.screen.map { .string($0) } ?? .null,
                    ])
                }),
            "messages": .array(
                model.log.newestFirst.prefix(20).map { message in
                    .object([
                        "id": .integer(Int(message.id)), "text": .string(message.text),
                        "screen": message.screen.map { .string($0) } ?? .null,
                        "receivedAt": .number(message.receivedAt.timeIntervalSince1970),
                    ])
                }),
            "bus": .object([
                "enqueued": .integer(bus.enqueued), "drained": .integer(bus.drained),
                "rejectedFull": .integer(bus.rejectedFull), "maxDepth": .integer(bus.maxDepth),
                "wakeups": .integer(self.bus.wakeupsSent), "applied": .integer(messagesApplied),
            ]),
        ]
        if let control {
            // Counted, never silent: refused, malformed and dropped requests and events.
            let c = control.statistics
            result["control"] = .object([
                "requests": .integer(c.requests), "replies": .integer(c.replies),
                "rejectedBusy": .integer(c.rejectedBusy), "malformed": .integer(c.malformed),
                "peerRejected": .integer(c.peerRejected),
                "repliesDroppedClosedConnection": .integer(c.repliesDroppedClosedConnection),
                "subscribers": .integer(c.subscribers), "eventsPublished": .integer(c.eventsPublished),
                "eventsDropped": .integer(c.eventsDropped),
            ])
        }
        return result
    }

    static func json(_ info: OutputInfo) -> JSONValue {
        .object([
            "name": .string(info.displayName), "description": .string(info.description ?? ""),
            "make": .string(info.make), "model": .string(info.model),
            "width": .integer(Int(info.modeWidth)), "height": .integer(Int(info.modeHeight)),
            "refreshMilliHertz": .integer(Int(info.refreshMilliHertz)), "scale": .integer(Int(info.scale)),
            "x": .integer(Int(info.logicalX)), "y": .integer(Int(info.logicalY)),
        ])
    }

    /// The bus line of the controller's status bar.
    var busStatusLine: String {
        let s = bus.statistics
        return "bus: applied \(messagesApplied) · depth max \(s.maxDepth) · rejected full \(s.rejectedFull)"
            + " · wakeups \(bus.wakeupsSent) · cards waiting \(model.cards.waiting.count)"
    }
}

extension JSONValue {
    var objectValue: [String: JSONValue] {
        if case .object(let members) = self { return members }
        return [:]
    }
}
