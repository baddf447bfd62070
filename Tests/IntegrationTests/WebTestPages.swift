import Foundation

/// Pages a test shows, written to a directory of its own under the temporary directory. The test removes it with
/// `defer { pages.remove() }` right after making it.
struct WebTestPages {
    let directory: URL

    /// Writes each page (file name → HTML) into a new directory.
    init(_ pages: [String: String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("web-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, html) in pages {
            try html.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
    }

    /// The `file://` URL of the page called `name`.
    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// The config rule that makes `screen` an external screen showing the page at `url`.
    static func externalRule(screen: String = "HEADLESS-2", url: URL) -> String {
        """
        [[rule]]
        match = { name = "\(screen)" }
        role = "external"
        content = "web"
        url = "\(url.absoluteString)"
        """
    }
}
