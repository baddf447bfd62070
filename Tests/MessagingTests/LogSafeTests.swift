import Messaging
import Testing

@Suite struct LogSafeTests {
    @Test func controlCharactersAreEscaped() {
        #expect("a\nb\u{1b}[2J".logSafe == "a\\u{a}b\\u{1b}[2J")
    }

    /// Credentials, the whole query and the fragment are hidden: tokens hide in any of them, with or without a key.
    @Test func urlsLoseTheirCredentialsQueryAndFragment() {
        #expect(
            "https://user:secret@kiosk.example/menu?key=abc&day=mon#top".logSafeURL
                == "https://…@kiosk.example/menu?…#…")
        #expect("http://example.org/a@b".logSafeURL == "http://example.org/a@b")
        #expect("file:///srv/app/main.html".logSafeURL == "file:///srv/app/main.html")
        #expect("https://example.org/?SECRET".logSafeURL == "https://example.org/?…")
        #expect("https://example.org/?=secret".logSafeURL == "https://example.org/?…")
        #expect("https://example.org/#access_token=abc".logSafeURL == "https://example.org/#…")
        #expect("https://example.org/\n?x=1".logSafeURL == "https://example.org/\\u{a}?…")
    }
}
