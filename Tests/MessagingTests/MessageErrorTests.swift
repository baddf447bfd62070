import Testing

@testable import Messaging

@Suite struct MessageErrorTests {
    /// The names are spelt out for speed; they must stay the cases' own names, which clients read.
    @Test func everyCodeIsNamedAsItsCase() {
        for code in MessageError.Code.allCases {
            #expect(code.name == String(describing: code))
        }
        #expect(MessageError(.busy, "full").description == "-32003 busy: full")
    }
}
