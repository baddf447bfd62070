import Outputs
import Testing

@testable import Screens

/// `transition` on a `[[playlist]]`'s item, and a video's item without `seconds`, in the config.
@Suite struct PlaylistTransitionConfigTests {
    @Test func anItemCrossfadesAndAVideoGoesWithoutSeconds() throws {
        let config = try RoleConfig.parse(
            """
            [[playlist]]
            name = "menu"
            items = [{ source = "/srv/a.png", seconds = 5, transition = "crossfade" }, { source = "/srv/promo.mp4" }]
            """)
        let items = try #require(config.playlists["menu"]).items
        #expect(items[0].transition == .crossfade && items[0].fadeSeconds == 1)
        #expect(items[1].transition == nil && items[1].seconds == nil && items[1].playsItsLength)
    }

    @Test func anUnknownTransitionOrAPictureWithoutSecondsIsRefusedWithItsPlace() {
        func error(_ items: String) -> RoleConfigError? {
            do {
                _ = try RoleConfig.parse("[[playlist]]\nname = \"menu\"\nitems = \(items)\n")
                return nil
            } catch { return error }
        }
        #expect(
            error(#"[{ source = "/srv/a.png", seconds = 5, transition = "dissolve" }]"#)
                == .invalidValue(
                    file: nil, key: "playlist[1].items[1].transition", value: "dissolve", reason: "not cut or crossfade"
                ))
        guard case .invalidValue(_, "playlist[1].items", _, let reason)? = error(#"[{ source = "/srv/a.png" }]"#) else {
            Issue.record("a picture without seconds accepted")
            return
        }
        #expect(reason.contains("needs seconds"))
    }
}
