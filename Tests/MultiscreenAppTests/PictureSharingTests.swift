import Testing

@testable import MultiscreenApp

/// Which screen of a group of identical screens draws their picture (the rest of `PictureSharing` runs against real
/// compositors in `IdenticalScreensTests`).
@Suite struct PictureSharingTests {
    @Test func theScreenThatDrewThePictureKeepsLeading() {
        // The second drew it; the first led another group before (it has a pool).
        #expect(PictureSharing.leaderIndex([(false, true, true), (true, true, true), (false, false, true)]) == 1)
    }

    @Test func aScreenWithAPoolComesBeforeOneWithout() {
        #expect(PictureSharing.leaderIndex([(false, false, true), (false, true, true)]) == 1)
        #expect(PictureSharing.leaderIndex([(false, false, true), (false, false, true)]) == 0)
    }

    @Test func aScreenThatCannotLeadHandsOver() {
        // The one that drew the picture is blocked (hidden, stale, off by schedule): the next that can, leads.
        #expect(PictureSharing.leaderIndex([(true, true, false), (false, false, true), (false, false, true)]) == 1)
        // None can: the first, so that the group still has a leader when the compositor answers again.
        #expect(PictureSharing.leaderIndex([(true, true, false), (false, false, false)]) == 0)
    }

    @Test func blockedOnlyAfterWaitingForTheCompositor() {
        let limit = PictureSharing.handOverAfter
        #expect(PictureSharing.isBlocked(waited: limit, waitsForCompositor: true))
        #expect(!PictureSharing.isBlocked(waited: limit - 1, waitsForCompositor: true))
        // Waiting for its leader's frame, not for the compositor: it can lead.
        #expect(!PictureSharing.isBlocked(waited: 10 * limit, waitsForCompositor: false))
    }
}
