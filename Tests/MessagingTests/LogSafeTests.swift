import Messaging
import Testing

@Suite struct LogSafeTests {
    @Test func controlCharactersAreEscaped() {
        #expect("a\nb\u{1b}[2J".logSafe == "a\\u{a}b\\u{1b}[2J")
    }

    @Test func urlsLoseTheirCredentialsAndQueryValues() {
        #expect(
            "https://user:secret@kiosk.example/menu?key=abc&day=mon#top".logSafeURL
                == "https://…@kiosk.example/menu?key=…&day=…#top")
        #expect("http://example.org/a@b".logSafeURL == "http://example.org/a@b")
        #expect("file:///srv/app/main.html".logSafeURL == "file:///srv/app/main.html")
        #expect("https://example.org/?token".logSafeURL == "https://example.org/?token=…")
        #expect("https://example.org/\n?x=1".logSafeURL == "https://example.org/\\u{a}?x=…")
    }
}
