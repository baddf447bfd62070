import Outputs
import Testing

@testable import Screens

@Suite struct ControllerPanelTests {
    @Test func tabCyclesFieldSendAndRowsAndBack() {
        var panel = ControllerPanel()
        #expect(panel.focus == .textField)
        var order: [ControllerPanel.Control] = []
        for _ in 0..<5 {
            _ = panel.handle(.tab, rows: 2)
            order.append(panel.focus)
        }
        #expect(order == [.sendButton, .screen(0), .screen(1), .textField, .sendButton])
        _ = panel.handle(.backTab, rows: 2)
        #expect(panel.focus == .textField)
        _ = panel.handle(.backTab, rows: 2)
        #expect(panel.focus == .screen(1))
    }

    @Test func arrowsMoveThroughTheRows() {
        var panel = ControllerPanel()
        _ = panel.handle(.down, rows: 3)
        #expect(panel.focus == .screen(0))
        _ = panel.handle(.down, rows: 3)
        _ = panel.handle(.down, rows: 3)
        _ = panel.handle(.down, rows: 3)
        #expect(panel.focus == .screen(2), "stops at the last row")
        _ = panel.handle(.up, rows: 3)
        _ = panel.handle(.up, rows: 3)
        _ = panel.handle(.up, rows: 3)
        #expect(panel.focus == .textField, "up from the first row goes back to the field")
    }

    @Test func typingAndEnterSendsAndClears() {
        var panel = ControllerPanel()
        for text in ["Hal", "lo ", "세계"] { _ = panel.handle(.text(text), rows: 1) }
        #expect(panel.text == "Hallo 세계" && panel.caret == 8)
        #expect(panel.handle(.enter, rows: 1) == .send("Hallo 세계"))
        #expect(panel.text.isEmpty && panel.caret == 0)
        #expect(panel.handle(.enter, rows: 1) == nil, "an empty field sends nothing")
        _ = panel.handle(.text("   "), rows: 1)
        #expect(panel.handle(.enter, rows: 1) == nil, "nor does whitespace")
    }

    @Test func sendButtonSendsTooAndTrimsWhitespace() {
        var panel = ControllerPanel()
        _ = panel.handle(.text("  hi  "), rows: 0)
        _ = panel.handle(.tab, rows: 0)
        #expect(panel.focus == .sendButton)
        #expect(panel.handle(.enter, rows: 0) == .send("hi"))
    }

    @Test func editingWorksOnCharactersNotBytes() {
        var panel = ControllerPanel()
        _ = panel.handle(.text("e"), rows: 0)
        _ = panel.handle(.text("\u{301}"), rows: 0)  // combining acute: joins the "e"
        #expect(panel.text == "é" && panel.caret == 1)
        _ = panel.handle(.text("👍🏽x"), rows: 0)
        #expect(panel.caret == 3)
        _ = panel.handle(.left, rows: 0)
        _ = panel.handle(.backspace, rows: 0)
        #expect(panel.text == "éx" && panel.caret == 1, "one backspace removes the whole emoji with its modifier")
        _ = panel.handle(.home, rows: 0)
        _ = panel.handle(.delete, rows: 0)
        #expect(panel.text == "x")
        _ = panel.handle(.end, rows: 0)
        #expect(panel.caret == 1)
        _ = panel.handle(.backspace, rows: 0)
        _ = panel.handle(.backspace, rows: 0)
        #expect(panel.text.isEmpty && panel.caret == 0)
    }

    @Test func escapeClearsTheFieldOrReturnsToIt() {
        var panel = ControllerPanel()
        _ = panel.handle(.text("draft"), rows: 2)
        _ = panel.handle(.down, rows: 2)
        _ = panel.handle(.escape, rows: 2)
        #expect(panel.focus == .textField && panel.text == "draft")
        _ = panel.handle(.escape, rows: 2)
        #expect(panel.text.isEmpty)
    }

    @Test func textIsOnlyTypedIntoTheField() {
        var panel = ControllerPanel()
        _ = panel.handle(.tab, rows: 1)
        _ = panel.handle(.text("x"), rows: 1)
        #expect(panel.text.isEmpty)
    }

    @Test func theFieldHasALimit() {
        var panel = ControllerPanel()
        _ = panel.handle(.text(String(repeating: "a", count: ControllerPanel.maximumLength + 50)), rows: 0)
        #expect(panel.text.count == ControllerPanel.maximumLength)
    }

    @Test func enterOnARowCyclesItsContent() {
        var panel = ControllerPanel()
        _ = panel.handle(.down, rows: 2)
        _ = panel.handle(.down, rows: 2)
        #expect(panel.handle(.enter, rows: 2) == .cycleContent(row: 1))
    }

    @Test func pressesFocusAndActivate() {
        var panel = ControllerPanel()
        #expect(panel.press(.screen(1), rows: 2) == .cycleContent(row: 1))
        #expect(panel.focus == .screen(1))
        #expect(panel.press(.textField, rows: 2) == nil)
        _ = panel.handle(.text("go"), rows: 2)
        #expect(panel.press(.sendButton, rows: 2) == .send("go"))
    }

    @Test func focusFollowsAShrinkingList() {
        var panel = ControllerPanel()
        _ = panel.press(.screen(2), rows: 3)
        panel.clampFocus(rows: 2)
        #expect(panel.focus == .screen(1))
        panel.clampFocus(rows: 0)
        #expect(panel.focus == .textField)
    }
}

@Suite struct PanelKeyTests {
    @Test func keysymsMapToKeys() {
        #expect(PanelKey(keysym: 0xff09, text: "\t", shift: false) == .tab)
        #expect(PanelKey(keysym: 0xff09, text: "", shift: true) == .backTab)
        #expect(PanelKey(keysym: 0xfe20, text: "", shift: true) == .backTab)
        #expect(PanelKey(keysym: 0xff0d, text: "\r", shift: false) == .enter)
        #expect(PanelKey(keysym: 0xff8d, text: "\r", shift: false) == .enter)
        #expect(PanelKey(keysym: 0xff08, text: "\u{8}", shift: false) == .backspace)
        #expect(PanelKey(keysym: 0x61, text: "a", shift: false) == .text("a"))
        #expect(PanelKey(keysym: 0x100_c548, text: "안", shift: false) == .text("안"))
    }

    @Test func controlCharactersAndUnknownKeysAreIgnored() {
        #expect(PanelKey(keysym: 0x61, text: "", shift: false) == nil, "Ctrl+A has no text")
        #expect(PanelKey(keysym: 0x61, text: "\u{1}", shift: false) == nil)
        #expect(PanelKey(keysym: 0xffbe, text: "", shift: false) == nil, "F1")
    }
}

@Suite struct ControllerLayoutTests {
    @Test func everyControlIsHitAtItsCentre() {
        let layout = ControllerLayout(width: 1280, height: 720, rowCount: 3)
        func centre(_ r: Rect) -> (Float, Float) { (r.x + r.width / 2, r.y + r.height / 2) }
        #expect(layout.control(atX: centre(layout.textField).0, y: centre(layout.textField).1) == .textField)
        #expect(layout.control(atX: centre(layout.sendButton).0, y: centre(layout.sendButton).1) == .sendButton)
        for (i, row) in layout.rows.enumerated() {
            #expect(layout.control(atX: centre(row).0, y: centre(row).1) == .screen(i))
        }
        #expect(layout.control(atX: 2, y: 710) == nil, "the status bar is not a control")
    }

    @Test func controlsDoNotOverlapAndStayInside() {
        for (w, h) in [(640, 360), (1920, 1080), (800, 1280)] {
            let l = ControllerLayout(width: Float(w), height: Float(h), rowCount: 4)
            let rects = [l.textField, l.sendButton] + l.rows
            for r in rects {
                #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= Float(w) && r.y + r.height <= Float(h))
            }
            #expect(l.textField.x + l.textField.width <= l.sendButton.x)
        }
    }

    @Test func sizesScaleWithTheOutput() {
        let small = ControllerLayout(width: 640, height: 360, rowCount: 1)
        let large = ControllerLayout(width: 1920, height: 1080, rowCount: 1)
        #expect(large.textSize == small.textSize * 3 || abs(large.textSize - small.textSize * 3) <= 2)
    }

    @Test func letterboxingKeepsTheAspectRatio() {
        let screen = Rect(x: 0, y: 0, width: 1000, height: 1000)
        let fitted = screen.fitting(aspect: 16.0 / 9.0)
        #expect(fitted.width == 1000 && abs(fitted.height - 562.5) < 0.01 && abs(fitted.y - 218.75) < 0.01)
        let tall = Rect(x: 0, y: 0, width: 1920, height: 1080).fitting(aspect: 4.0 / 3.0)
        #expect(tall.height == 1080 && tall.width == 1440 && tall.x == 240)
    }
}

@Suite struct ControllerLayoutScrollingTests {
    @Test func twelveRowsScrollToKeepTheFocusedRowVisible() {
        for (w, h) in [(640, 360), (1280, 720), (1920, 1080)] {
            let unfocused = ControllerLayout(width: Float(w), height: Float(h), rowCount: 12)
            #expect(unfocused.visibleRows.lowerBound == 0)
            #expect(unfocused.visibleRows.count < 12, "12 rows do not fit at \(w)×\(h)")
            for focused in 0..<12 {
                let l = ControllerLayout(width: Float(w), height: Float(h), rowCount: 12, focusedRow: focused)
                #expect(l.visibleRows.contains(focused))
                for index in l.visibleRows {
                    let row = l.rows[index]
                    #expect(row.y >= l.rowsViewport.y && row.y + row.height <= l.rowsViewport.y + l.rowsViewport.height)
                    #expect(row.y + row.height <= l.status.y, "row \(index) runs under the status bar")
                    #expect(l.control(atX: row.x + row.width / 2, y: row.y + row.height / 2) == .screen(index))
                }
                // A row scrolled out is not hit where it would have been.
                for index in 0..<12 where !l.visibleRows.contains(index) {
                    let row = l.rows[index]
                    let hit = l.control(atX: row.x + row.width / 2, y: row.y + row.height / 2)
                    #expect(hit != .screen(index))
                }
            }
        }
    }

    @Test func waitingCardsTakeRoomBelowTheList() {
        let without = ControllerLayout(width: 1280, height: 720, rowCount: 12, focusedRow: 11)
        let with = ControllerLayout(width: 1280, height: 720, rowCount: 12, focusedRow: 11, waitingCardCount: 3)
        #expect(with.rowsViewport.height < without.rowsViewport.height)
        #expect(with.waitingCards.y >= with.rowsViewport.y + with.rowsViewport.height)
        #expect(with.waitingCards.y + with.waitingCards.height <= with.status.y)
        #expect(with.visibleRows.contains(11))
    }
}
