import Foundation
import Testing

@testable import Screens

@Suite struct CardBoardTests {
    @Test func openReplaceClose() throws {
        var board = CardBoard()
        let first = board.open(text: "Gate 4", onScreen: "HDMI-A-2")
        let other = board.open(text: "Menu", onScreen: "HDMI-A-3")
        #expect(first == Card(id: 1, text: "Gate 4", screen: "HDMI-A-2"))
        let replacement = board.open(text: "Gate 5", onScreen: "HDMI-A-2")
        #expect(replacement.id == 3, "a fresh id")
        #expect(board.card(onScreen: "HDMI-A-2") == replacement, "one card per screen")
        #expect(board.cards == [other, replacement])
        #expect(try board.close(onScreen: "HDMI-A-2") == replacement)
        #expect(board.card(onScreen: "HDMI-A-2") == nil)
        #expect(throws: CardError.noCardOpen(screen: "HDMI-A-2")) { try board.close(onScreen: "HDMI-A-2") }
        #expect(board.cards == [other])
    }

    @Test func aRemovedScreensCardWaitsAndCanBeReopened() throws {
        var board = CardBoard()
        let card = board.open(text: "Welcome", onScreen: "DP-1")
        #expect(board.screenRemoved("DP-1") == Card(id: card.id, text: "Welcome", screen: nil))
        #expect(board.screenRemoved("DP-9") == nil)
        #expect(board.open.isEmpty)
        #expect(board.waiting.map(\.id) == [card.id])
        board.open(text: "Old", onScreen: "DP-2")
        let reopened = try board.reopen(id: card.id, onScreen: "DP-2")
        #expect(reopened == Card(id: card.id, text: "Welcome", screen: "DP-2"))
        #expect(board.cards == [reopened], "reopening replaces the card open there")
        #expect(throws: CardError.unknownCard(id: 99)) { try board.reopen(id: 99, onScreen: "DP-2") }
        #expect(try board.discard(id: card.id) == reopened)
        #expect(board.cards.isEmpty)
    }

    @Test func restoredCardsKeepTheirIdsAndNewOnesContinue() {
        var board = CardBoard(cards: [Card(id: 7, text: "a", screen: nil), Card(id: 3, text: "b", screen: "DP-1")])
        #expect(board.open(text: "c", onScreen: "DP-2").id == 8)
    }

    @Test func theModelChecksScreensAndSwitchesTheModeToCard() throws {
        let a = monitor(1, "HDMI-A-1", serial: "AAA")
        let b = monitor(2, "HDMI-A-2", serial: "BBB")
        var model = ScreenModel()
        model.update(outputs: [a, b])
        #expect(throws: CardError.unknownScreen(UnknownScreenError(name: "DP-1", known: ["HDMI-A-1", "HDMI-A-2"]))) {
            try model.openCard(text: "x", onScreen: "DP-1")
        }
        let card = try model.openCard(text: "Boarding", onScreen: "HDMI-A-2")
        #expect(model.assignment.contents[2] == .card)
        #expect(model.roles.memory.contents[OutputIdentity(b).key] == .card)
        // Unplugged: the card waits in the controller's list.
        let update = model.update(outputs: [a])
        #expect(update.returnedCards == [Card(id: card.id, text: "Boarding", screen: nil)])
        #expect(model.cards.waiting.map(\.id) == [card.id])
        model.update(outputs: [a, b])
        try model.reopenCard(id: card.id, onScreen: "HDMI-A-2")
        #expect(try model.closeCard(onScreen: "HDMI-A-2").id == card.id)
        #expect(model.assignment.contents[2] == .card, "closing keeps the mode (card with no card shows messages)")
    }

    @Test func theModelRoundTripsThroughPersistentState() throws {
        let a = monitor(1, "HDMI-A-1", serial: "AAA")
        let b = monitor(2, "HDMI-A-2", serial: "BBB")
        var model = ScreenModel(messageCapacity: 3)
        model.update(outputs: [a, b])
        try model.set(role: .controller, forScreen: "HDMI-A-2")
        try model.openCard(text: "Card", onScreen: "HDMI-A-1")
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        for i in 1...5 { try model.receive(text: "m\(i)", screen: nil, at: time) }
        #expect(throws: UnknownScreenError.self) { try model.receive(text: "x", screen: "DP-3", at: time) }
        let state = model.persistentState
        #expect(state.messages.map(\.text) == ["m3", "m4", "m5"], "oldest first, bounded")
        var restored = ScreenModel(state: state, messageCapacity: 3)
        let assignment = restored.update(outputs: [a, b]).assignment
        #expect(assignment.controller == 2)
        #expect(assignment.contents == [1: .card])
        #expect(restored.cards.card(onScreen: "HDMI-A-1")?.text == "Card")
        #expect(try restored.receive(text: "m6", screen: nil, at: time).id == 6, "ids continue")
    }
}
