import Foundation
import Outputs

extension ScreenModel {
    /// The item of `playlist` a screen shows while the clock says item `index`: that one when it can be shown (a
    /// file, a page, or an asset by URL that is cached: ``availableAssets``), else the nearest one before it that can,
    /// wrapping round the list, so that a screen keeps the picture it had rather than going black; nil when no item
    /// can be shown yet.
    public func shownItem(of playlist: Playlist, at index: Int) -> Int? {
        let count = playlist.items.count
        guard playlist.items.indices.contains(index) else { return nil }
        let now = Date().timeIntervalSince1970
        for step in 0..<count {
            let candidate = (index - step + count) % count
            let item = playlist.items[candidate]
            guard item.isPlayable(at: now) else { continue }
            if !item.isAsset || availableAssets[item.source] != nil { return candidate }
        }
        return nil
    }

    /// The assets by URL the current playlists name, each with the checksum an item gives it (nil: none): every
    /// playlist set at run time and every interrupt, whether its screen is connected or not, and the `[[playlist]]`s
    /// a rule or a schedule names, so that each is fetched before its turn comes.
    public var wantedAssets: [String: String?] {
        var wanted: [String: String?] = [:]
        for item in namedPlaylists.lazy.flatMap(\.items) where item.isAsset {
            // Two items naming one URL: a checksum given by either is the one to check.
            if let known = wanted[item.source], known != nil { continue }
            wanted[item.source] = item.sha256
        }
        return wanted
    }

    /// The videos that play their own length (items without seconds) in the playlists ``wantedAssets`` looks at, by
    /// source, each with the file to measure: its path, or an asset's cached file (an asset not cached yet is
    /// measured once it is).
    public var videosPlayingTheirLength: [String: String] {
        var videos: [String: String] = [:]
        for item in namedPlaylists.lazy.flatMap(\.items) where item.playsItsLength {
            switch item.content {
            case .file(let path): videos[item.source] = path
            case .asset(let url): if let cached = availableAssets[url] { videos[url] = cached }
            default: break
            }
        }
        return videos
    }

    /// Every playlist set at run time and every interrupt, whether its screen is connected or not, and the
    /// `[[playlist]]`s a rule or a schedule names.
    var namedPlaylists: [Playlist] {
        var configured = Set(roles.config.rules.compactMap(\.playlist))
        for schedule in roles.config.schedules.values {
            if let fallback = schedule.fallback { configured.insert(fallback) }
            for period in schedule.periods {
                if case .playlist(let name) = period.slot { configured.insert(name) }
            }
        }
        return Array(playlists.values) + interrupts.values.map(\.playlist)
            + configured.compactMap { roles.config.playlists[$0] }
    }
}
