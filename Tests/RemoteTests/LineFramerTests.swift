import Testing

@testable import Remote

@Suite struct LineFramerTests {
    private func feed(_ framer: inout LineFramer, _ text: String) -> [LineFramer.Event] {
        Array(text.utf8).withUnsafeBytes { framer.append($0) }
    }

    @Test func splitsLinesAcrossChunks() {
        var framer = LineFramer(limit: 10)
        #expect(feed(&framer, "ab") == [])
        #expect(feed(&framer, "c\nde\r\n\nf") == [.line(Array("abc".utf8)), .line(Array("de".utf8)), .line([])])
        #expect(framer.finish() == [.line(Array("f".utf8))])
    }

    @Test func overlongLineIsReportedOnceAndSkippedToItsNewline() {
        var framer = LineFramer(limit: 4)
        #expect(feed(&framer, "abc") == [])
        #expect(feed(&framer, "defg") == [.tooLong])
        #expect(framer.pendingBytes == 0)
        #expect(feed(&framer, "hijk") == [])
        #expect(feed(&framer, "l\nok\n") == [.line(Array("ok".utf8))])
        #expect(feed(&framer, "abcdef\nxy\n") == [.tooLong, .line(Array("xy".utf8))])
        #expect(feed(&framer, "abcd\n") == [.line(Array("abcd".utf8))])
    }
}
