import TOMLPrecheck
import Testing

@Suite struct TOMLKeyLocatorTests {
    private let text = """
        # a kiosk
        [controller]
        fallback = "first"

        [[rule]]
        match = { name = "HDMI-A-1" }
        role = "controller"

        [[rule]]
          match = { make = "Dell*", nmae = "x" }
        content = "mirror"

        [theme]
        background = "#zzzzzz"   # a typo
        """

    private func at(_ path: String) -> TOMLKeyLocator.Position? { TOMLKeyLocator.position(of: path, in: text) }

    @Test func keysOfTablesAndArraysOfTables() {
        #expect(at("controller.fallback") == .init(line: 3, column: 1))
        #expect(at("theme.background") == .init(line: 14, column: 1))
        #expect(at("rule[1].role") == .init(line: 7, column: 1))
        #expect(at("rule[2].content") == .init(line: 11, column: 1))
        #expect(at("rule[2].match") == .init(line: 10, column: 3))
    }

    @Test func keysInsideAnInlineTable() {
        #expect(at("rule[1].match.name") == .init(line: 6, column: 11))
        #expect(at("rule[2].match.nmae") == .init(line: 10, column: 29))
    }

    @Test func aMissingKeyIsPlacedAtItsTable() {
        #expect(at("rule[2].role") == .init(line: 9, column: 1))
        #expect(at("theme.align") == .init(line: 13, column: 1))
        #expect(at("fleet.broker") == nil)
    }
}
