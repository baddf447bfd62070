import Foundation
import Testing

@testable import Outputs

/// What an item by URL is: an asset (an image or a video, by its path's extension) or a web page; and its checksum.
@Suite struct PlaylistAssetItemTests {
    @Test func aURLWhosePathEndsInAMediaExtensionIsAnAsset() {
        let cases: [(String, MediaKind?)] = [
            ("https://cdn.example.org/a/menu.PNG", .image), ("http://h/clip.mp4?token=1#t=3", .video),
            ("https://h/photo.jpeg#x", .image), ("https://h/loop.webm", .video),
            ("https://example.org/", nil), ("https://example.org/index.html", nil), ("https://h/page?file=x.png", nil),
            ("https://h.png", nil), ("file:///srv/a.png", nil), ("/srv/a.png", nil),
        ]
        for (source, kind) in cases {
            let item = Playlist.Item(source: source, seconds: 5)
            #expect(item.assetKind == kind, "\(source)")
            #expect(item.isAsset == (kind != nil), "\(source)")
            #expect(item.isPage == (kind == nil && !source.hasPrefix("/")), "\(source)")
        }
    }

    @Test func aChecksumIsSixtyFourHexDigitsOnAnAssetOnly() {
        let sha = String(repeating: "0f", count: 32)
        #expect(Playlist.problem(items: [.init(source: "https://h/a.png", seconds: 5, sha256: sha)]) == nil)
        #expect(
            Playlist.problem(items: [.init(source: "https://h/a.png", seconds: 5, sha256: "0f")])
                == "item 1: sha256 must be 64 hexadecimal digits")
        #expect(
            Playlist.problem(items: [.init(source: "https://h/a.png", seconds: 5, sha256: sha.uppercased())])
                == "item 1: sha256 must be 64 hexadecimal digits")
        for source in ["https://h/page", "/srv/a.png"] {
            #expect(
                Playlist.problem(items: [.init(source: source, seconds: 5, sha256: sha)])?
                    .hasPrefix("item 1: sha256 is only for an image or video by http(s) URL") == true)
        }
        #expect(
            Playlist.problem(items: [.init(source: "https://h/a b.png", seconds: 5)])
                == "item 1: a URL has no spaces (percent-encode them)")
    }

    /// State saved before assets existed has no `sha256`: it still decodes.
    @Test func savedItemsWithoutAChecksumStillDecode() throws {
        let old = Data(#"{"items":[{"source":"/a.png","seconds":5}],"fit":"contain","epoch":0}"#.utf8)
        let playlist = try JSONDecoder().decode(Playlist.self, from: old)
        #expect(playlist.items == [.init(source: "/a.png", seconds: 5)])
        let withChecksum = Playlist(items: [.init(source: "https://h/a.png", seconds: 5, sha256: "ab")])
        #expect(try JSONDecoder().decode(Playlist.self, from: JSONEncoder().encode(withChecksum)) == withChecksum)
    }
}
