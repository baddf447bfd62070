import Foundation
import Messaging
import Outputs
import Screens
import Testing

@testable import Product

/// `media.show` with `audio`: the item carries it to the reader and to `status`, it is saved, and sound plays on one
/// screen at a time (a second screen asking for it is refused, naming the first, until the first lets it go).
@Suite struct MediaSoundRequestTests {
    private static func product(store path: String) -> ProductController {
        var product = ProductController(
            model: ScreenModel(state: StateStore(path: path).load().state), store: StateStore(path: path))
        _ = product.outputsChanged(
            (1...3).map { index in
                var output = OutputInfo(registryName: UInt32(index))
                output.name = "HEADLESS-\(index)"
                return output
            })
        return product
    }

    /// Asks for `path` on `screen` and settles it as a readable video. - Returns: the error, if refused.
    private static func show(
        _ product: inout ProductController, _ screen: String, _ path: String, audio: Bool, at: Double? = nil
    ) -> MessageError? {
        let asked = product.execute(.showMedia(screen: screen, path: path, audio: audio, at: at))
        if case .error(let error)? = asked.reply { return error }
        guard let request = asked.mediaToRead else { return nil }
        #expect(request.item.audio == audio)
        _ = product.settle(request, with: .readable(kind: .video, width: 320, height: 240, decoder: "avdec_h264"))
        return nil
    }

    @Test func soundPlaysOnOneScreenAtATime() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sound-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var product = Self.product(store: path)

        #expect(Self.show(&product, "HEADLESS-2", "/srv/promo.mp4", audio: true) == nil)
        #expect(product.model.media(of: 2)?.item.audio == true)
        #expect(product.model.soundScreen(otherThan: "HEADLESS-3") == "HEADLESS-2")

        // Another screen: muted is fine, sound is refused, naming the screen that has it.
        #expect(Self.show(&product, "HEADLESS-3", "/srv/menu.mp4", audio: false) == nil)
        let refused = try #require(Self.show(&product, "HEADLESS-3", "/srv/menu.mp4", audio: true))
        #expect(refused.code == .invalidParams)
        #expect(refused.message.contains("sound plays on HEADLESS-2 already"), "\(refused.message)")
        #expect(product.model.media(of: 3)?.item.audio == false)
        // A start still to come holds the sound too.
        #expect(
            Self.show(&product, "HEADLESS-2", "/srv/promo.mp4", audio: true, at: Date().timeIntervalSince1970 + 30)
                == nil)
        #expect(Self.show(&product, "HEADLESS-3", "/srv/menu.mp4", audio: true) != nil)

        // The same screen may show another file with sound; once it stops, another screen may have it.
        #expect(Self.show(&product, "HEADLESS-2", "/srv/other.mp4", audio: true) == nil)
        _ = product.execute(.stopMedia(screen: "HEADLESS-2"))
        #expect(Self.show(&product, "HEADLESS-3", "/srv/menu.mp4", audio: true) == nil)
        _ = product.saveIfChanged()

        // Saved with the item.
        let restarted = Self.product(store: path)
        #expect(restarted.model.media(of: 3)?.item.audio == true)
        #expect(restarted.model.media(of: 2) == nil)
    }

    /// Two requests for sound sent together: the first holds the sound while its file is read, so the second is refused
    /// at once (its file never read, so no second pipeline sounds meanwhile); once the first is answered, a refusal
    /// lets the sound go and a success keeps it.
    @Test func aRequestForSoundHoldsItWhileItsFileIsRead() throws {
        var product = Self.product(store: "/nonexistent/sound.json")
        let first = try #require(
            product.execute(.showMedia(screen: "HEADLESS-2", path: "/a.mp4", audio: true)).mediaToRead)
        let second = product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: true))
        #expect(second.mediaToRead == nil)
        guard case .error(let error)? = second.reply else {
            Issue.record("answered \(String(describing: second.reply))")
            return
        }
        #expect(error.message.contains("sound plays on HEADLESS-2 already"), "\(error.message)")
        // Muted is fine meanwhile, and so is another request for sound on the same screen.
        #expect(product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: false)).mediaToRead != nil)
        let again = try #require(
            product.execute(.showMedia(screen: "HEADLESS-2", path: "/c.mp4", audio: true)).mediaToRead)

        // Both reads of HEADLESS-2 fail: the sound is free once the last is answered.
        _ = product.settle(first, with: .failed("no such file"))
        #expect(product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: true)).mediaToRead == nil)
        _ = product.settle(again, with: .failed("no such file"))
        let third = try #require(
            product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: true)).mediaToRead)
        let readable = MediaReading.readable(kind: .video, width: 320, height: 240, decoder: "avdec_h264")
        _ = product.settle(third, with: readable)
        #expect(product.model.soundScreen(otherThan: "HEADLESS-2") == "HEADLESS-3")
        #expect(product.soundReads.isEmpty)
    }

    /// A read that is never answered holds the sound for the lease only.
    @Test func anUnansweredReadHoldsTheSoundForItsLeaseOnly() throws {
        var product = Self.product(store: "/nonexistent/sound.json")
        let now: UInt64 = 1_000_000_000_000
        #expect(
            product.execute(.showMedia(screen: "HEADLESS-2", path: "/a.mp4", audio: true), now: now).mediaToRead != nil)
        let lease = UInt64(ProductController.soundReadLease * 1e9)
        let held = product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: true), now: now + lease - 1)
        #expect(held.mediaToRead == nil)
        let freed = product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: true), now: now + lease)
        #expect(freed.mediaToRead != nil)
    }

    /// Two requests for sound both read: one let through while the other's lease had run out (its read never
    /// answered in time) is refused when it is read, if the other was shown meanwhile.
    @Test func soundIsCheckedAgainWhenTheFileWasRead() throws {
        var product = Self.product(store: "/nonexistent/sound.json")
        let now: UInt64 = 1_000_000_000_000
        let lease = UInt64(ProductController.soundReadLease * 1e9)
        let first = try #require(
            product.execute(.showMedia(screen: "HEADLESS-2", path: "/a.mp4", audio: true), now: now).mediaToRead)
        let second = try #require(
            product.execute(.showMedia(screen: "HEADLESS-3", path: "/b.mp4", audio: true), now: now + lease)
                .mediaToRead)
        let readable = MediaReading.readable(kind: .video, width: 320, height: 240, decoder: "avdec_h264")
        _ = product.settle(first, with: readable, now: now + lease)
        let refused = product.settle(second, with: readable, now: now + lease)
        guard case .error(let error)? = refused.reply else {
            Issue.record("answered \(String(describing: refused.reply))")
            return
        }
        #expect(error.message.contains("sound plays on HEADLESS-2 already"), "\(error.message)")
        #expect(product.model.media(of: 3) == nil)
    }

    /// A screen that had the sound and shows something else meanwhile does not bring it back once another took it.
    @Test func soundTakenByAnotherScreenIsNotBroughtBack() throws {
        var product = Self.product(store: "/nonexistent/sound.json")
        #expect(Self.show(&product, "HEADLESS-2", "/a.mp4", audio: true) == nil)
        _ = product.execute(.setContent(screen: "HEADLESS-2", mode: "messages"))
        #expect(product.model.soundScreen(otherThan: "HEADLESS-3") == nil)
        #expect(Self.show(&product, "HEADLESS-3", "/b.mp4", audio: true) == nil)
        _ = product.execute(.setContent(screen: "HEADLESS-2", mode: "video"))
        #expect(product.model.media(of: 2)?.item.path == "/a.mp4")
        #expect(product.model.media(of: 2)?.item.audio == false)
        #expect(product.model.soundScreen(otherThan: "HEADLESS-2") == "HEADLESS-3")
    }

    /// A start with sound waiting on a screen unplugged meanwhile still holds the sound: it would take it back when
    /// the screen comes back before its start.
    @Test func aWaitingStartOnAnUnpluggedScreenHoldsTheSound() throws {
        var product = Self.product(store: "/nonexistent/sound.json")
        let at = Date().timeIntervalSince1970 + 30
        #expect(Self.show(&product, "HEADLESS-2", "/a.mp4", audio: true, at: at) == nil)
        _ = product.outputsChanged(
            [1, 3].map { index in
                var output = OutputInfo(registryName: UInt32(index))
                output.name = "HEADLESS-\(index)"
                return output
            })
        let refused = try #require(Self.show(&product, "HEADLESS-3", "/b.mp4", audio: true))
        #expect(refused.message.contains("sound plays on HEADLESS-2 already"), "\(refused.message)")
    }

    @Test func anItemSavedBeforeSoundExistedIsMuted() throws {
        let saved = #"{"path": "/srv/loop.mp4", "fit": "contain", "rotation": 0, "loop": true}"#
        let item = try JSONDecoder().decode(MediaItem.self, from: Data(saved.utf8))
        #expect(item == MediaItem(path: "/srv/loop.mp4", loop: true))
    }
}
