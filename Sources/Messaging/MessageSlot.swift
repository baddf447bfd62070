import Outputs

/// A ``Message`` as it sits in a ring slot: plain values only, so pushing and popping it never retains, releases
/// or allocates. Its strings are in the producer's ``TextSlab``, back to back from `textStart`: first the body
/// (the text, or the role of `role.set`), then the screen name, then the client's request id.
struct MessageSlot: BitwiseCopyable {
    var method: UInt8
    var hasScreen: Bool
    /// Bytes of the client's request id (``ReceivedMessage/requestID``), 0 for none; it fills padding.
    var requestIDLength: UInt8
    var bodyLength: UInt32
    var screenLength: UInt32
    /// A number some methods carry: `send`'s ttl in milliseconds (0: none), `role.set`'s force (1), a card's id.
    /// It fills the padding after the lengths, so the slot stays 32 bytes.
    var argument: UInt32
    var textStart: UInt
    var enqueuedAt: UInt64

    /// The slab position just past this message's bytes: what the consumer frees up to once it has read them.
    var textEnd: UInt { textStart &+ UInt(bodyLength) &+ UInt(screenLength) &+ UInt(requestIDLength) }

    /// The strings that go to the slab, body then screen, and the slot with everything else filled in.
    static func parts(of message: Message) -> (body: String, screen: String?, argument: UInt32, method: MessageMethod) {
        switch message {
        case .send(let text, let screen, let ttl):
            (text, screen, ttl.map { UInt32(($0 * 1000).rounded(.up)) } ?? 0, .send)
        case .openCard(let screen, let text): (text, screen, 0, .openCard)
        case .closeCard(let screen): ("", screen, 0, .closeCard)
        case .reopenCard(let id, let screen): ("", screen, id, .reopenCard)
        case .discardCard(let id): ("", nil, id, .discardCard)
        case .setRole(let screen, let role, let force): (role, screen, force ? 1 : 0, .setRole)
        case .resetRole(let screen): ("", screen, 0, .resetRole)
        case .setContent(let screen, let mode): (mode, screen, 0, .setContent)
        case .clearMessages(let screen): ("", screen, 0, .clearMessages)
        case .status: ("", nil, 0, .status)
        case .outputs: ("", nil, 0, .outputs)
        case .remoteOffer(let link, let code, let locked): (link, code, locked ? 1 : 0, .remoteOffer)
        case .openWeb(let screen, let url): (url, screen, 0, .openWeb)
        case .closeWeb(let screen): ("", screen, 0, .closeWeb)
        case .reloadWeb(let screen): ("", screen, 0, .reloadWeb)
        case .remoteActivity(let activity): (activity.detail, activity.kind.rawValue, activity.session, .remoteActivity)
        // The moment, when there is one, before the path and a newline (a number's text has none; a path may).
        case .showMedia(let screen, let path, let fit, let rotation, let loop, let audio, let at):
            (
                (at.map { "\($0)" } ?? "") + "\n" + path, screen,
                MediaArgument(fit: fit, rotation: rotation, loop: loop, audio: audio).packed,
                .showMedia
            )
        case .stopMedia(let screen): ("", screen, 0, .stopMedia)
        case .setPlaylist(let screen, let playlist): (PlaylistText.encode(playlist), screen, 0, .setPlaylist)
        case .clearPlaylist(let screen): ("", screen, 0, .clearPlaylist)
        case .interruptPlaylist(let screen, let request):
            (InterruptText.encode(request), screen, 0, .interruptPlaylist)
        case .playlistHistory(let screen, let limit): ("", screen, UInt32(clamping: limit), .playlistHistory)
        case .showPlaylist(let screen): ("", screen, 0, .showPlaylist)
        // The moment as text: a slot's number is 32 bits, too few for seconds since 1970 to the millisecond.
        case .stepPlaylist(let screen, let step, let at): (at.map { "\($0)" } ?? "", screen, 0, MessageMethod(step))
        case .showSchedule(let screen): ("", screen, 0, .showSchedule)
        // A schedule's name is never empty (``Message/validate()``): empty is "the rule's again".
        case .setSchedule(let screen, let schedule): (schedule ?? "", screen, 0, .setSchedule)
        case .identifyScreens(let seconds): ("", nil, UInt32((seconds * 1000).rounded()), .identifyScreens)
        // An absolute path is never empty (``Message/validate()``): empty is "in the reply".
        case .captureScreen(let screen, let path): (path ?? "", screen, 0, .captureScreen)
        }
    }

    /// The client's request id from the slab, nil for none.
    func requestID(in slab: TextSlab) -> String? {
        guard requestIDLength > 0 else { return nil }
        let start = textStart &+ UInt(bodyLength) &+ UInt(screenLength)
        return String(decoding: slab.bytes(at: start, count: Int(requestIDLength)), as: UTF8.self)
    }

    /// Rebuilds the message from the slot and its slab bytes (on the display thread, where allocating is fine).
    func message(in slab: TextSlab) -> Message {
        let body = String(decoding: slab.bytes(at: textStart, count: Int(bodyLength)), as: UTF8.self)
        let screen =
            hasScreen
            ? String(
                decoding: slab.bytes(at: textStart &+ UInt(bodyLength), count: Int(screenLength)), as: UTF8.self)
            : nil
        switch MessageMethod.allCases[Int(method)] {
        case .send: return .send(text: body, screen: screen, ttl: argument == 0 ? nil : Double(argument) / 1000)
        case .openCard: return .openCard(screen: screen ?? "", text: body)
        case .closeCard: return .closeCard(screen: screen ?? "")
        case .reopenCard: return .reopenCard(id: argument, screen: screen ?? "")
        case .discardCard: return .discardCard(id: argument)
        case .setRole: return .setRole(screen: screen ?? "", role: body, force: argument != 0)
        case .resetRole: return .resetRole(screen: screen)
        case .setContent: return .setContent(screen: screen ?? "", mode: body)
        case .clearMessages: return .clearMessages(screen: screen)
        case .status: return .status
        case .outputs: return .outputs
        case .remoteOffer: return .remoteOffer(link: body, code: screen ?? "", locked: argument != 0)
        case .openWeb: return .openWeb(screen: screen ?? "", url: body)
        case .closeWeb: return .closeWeb(screen: screen ?? "")
        case .reloadWeb: return .reloadWeb(screen: screen ?? "")
        case .remoteActivity:
            return .remoteActivity(
                RemoteActivity(
                    kind: RemoteActivity.Kind(rawValue: screen ?? "") ?? .released, session: argument, detail: body))
        case .showMedia:
            let options = MediaArgument(packed: argument)
            let moment = body.prefix { $0 != "\n" }
            return .showMedia(
                screen: screen ?? "", path: String(body.dropFirst(moment.count + 1)), fit: options.fit,
                rotation: options.rotation, loop: options.loop, audio: options.audio, at: Double(moment))
        case .stopMedia: return .stopMedia(screen: screen ?? "")
        case .setPlaylist:
            return .setPlaylist(screen: screen ?? "", playlist: PlaylistText.decode(body) ?? Playlist(items: []))
        case .clearPlaylist: return .clearPlaylist(screen: screen ?? "")
        case .interruptPlaylist:
            // Only a validated message is written, so the text reads back; otherwise a playlist no config names, which
            // is refused, never an interrupt ended by mistake.
            return .interruptPlaylist(
                screen: screen ?? "", request: InterruptText.decode(body) ?? .start(source: .named("")))
        case .playlistHistory: return .playlistHistory(screen: screen, limit: Int(argument))
        case .showPlaylist: return .showPlaylist(screen: screen ?? "")
        case .nextPlaylistItem, .previousPlaylistItem, .pausePlaylist, .resumePlaylist:
            let method = MessageMethod.allCases[Int(method)]
            return .stepPlaylist(screen: screen ?? "", step: method.playlistStep!, at: Double(body))
        case .showSchedule: return .showSchedule(screen: screen)
        case .setSchedule: return .setSchedule(screen: screen ?? "", schedule: body.isEmpty ? nil : body)
        case .identifyScreens: return .identifyScreens(seconds: Double(argument) / 1000)
        case .captureScreen: return .captureScreen(screen: screen ?? "", path: body.isEmpty ? nil : body)
        case .subscribeEvents: preconditionFailure("events.subscribe is answered by its transport, never queued")
        }
    }
}

extension MessageMethod {
    /// The slot's one-byte code: the position in `allCases`.
    var slotCode: UInt8 { UInt8(Self.allCases.firstIndex(of: self)!) }
}

/// `media.show`'s options in the slot's argument: the fit's index in bits 0–1, the quarter turns in bits 2–3, loop in
/// bit 4, audio in bit 5.
private struct MediaArgument {
    var fit: MediaFit
    var rotation: MediaRotation
    var loop: Bool
    var audio: Bool

    init(fit: MediaFit, rotation: MediaRotation, loop: Bool, audio: Bool) {
        (self.fit, self.rotation, self.loop, self.audio) = (fit, rotation, loop, audio)
    }

    init(packed: UInt32) {
        fit = MediaFit.allCases[Int(packed & 3)]
        rotation = MediaRotation.allCases[Int((packed >> 2) & 3)]
        loop = packed & 16 != 0
        audio = packed & 32 != 0
    }

    var packed: UInt32 {
        UInt32(MediaFit.allCases.firstIndex(of: fit)!) | UInt32(MediaRotation.allCases.firstIndex(of: rotation)!) << 2
            | (loop ? 16 : 0) | (audio ? 32 : 0)
    }
}
