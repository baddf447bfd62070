import Messaging
import Testing

@Suite struct TextEscapingTests {
    @Test func markupEscapingClosesEveryWayOutOfTextAndAttributes() {
        #expect(
            #"<img src=x onerror="a('b')"> & more"#.markupEscaped
                == "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt; &amp; more")
        #expect("héllo 안녕 👋🏽".markupEscaped == "héllo 안녕 👋🏽")
        #expect("".markupEscaped == "")
    }
}
