import Foundation
import Testing

@testable import Messaging

/// docs/protocol.md is the protocol's reference: it must name every method, event and error code the
/// implementation has, and nothing it does not.
@Suite struct ProtocolDocumentTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)) ?? ""
    }()

    /// The `### \`name\`` headings of one `## Section`.
    static func headings(in section: String) -> [String] {
        guard let start = document.range(of: "\n## \(section)\n") else { return [] }
        let rest = document[start.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return body.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("### `"), line.hasSuffix("`") else { return nil }
            return String(line.dropFirst(5).dropLast())
        }
    }

    @Test func everyMethodIsDocumented() {
        #expect(!Self.document.isEmpty, "docs/protocol.md is missing")
        #expect(Self.headings(in: "Methods") == MessageMethod.allCases.map(\.rawValue))
    }

    @Test func everyEventIsDocumented() {
        #expect(Self.headings(in: "Events") == Event.Name.allCases.map(\.rawValue))
    }

    @Test func everyErrorCodeIsDocumented() {
        let rows = Self.document.split(separator: "\n").filter { $0.hasPrefix("| -32") }
        let documented = rows.map { row in
            row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(documented.map { Int($0[0]) } == MessageError.Code.allCases.map(\.rawValue))
        #expect(documented.map { $0[1] } == MessageError.Code.allCases.map { "`\($0)`" })
    }

    /// The limits the document quotes are the implementation's.
    @Test func limitsMatch() {
        #expect(Self.document.contains("(\(MessageCodec.maximumRequestBytes.formatted(.number.grouping(.automatic))))"))
        #expect(Self.document.contains("\(Int(Message.maximumTTL).formatted(.number.grouping(.automatic))) s"))
        #expect(Message.maximumTextBytes == 64 * 1024 && Self.document.contains("64 KiB"))
        #expect(Self.document.contains("\(Message.maximumNameBytes) bytes"))
    }
}
