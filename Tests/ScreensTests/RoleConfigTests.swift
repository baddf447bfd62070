import Foundation
import Testing

@testable import Screens

@Suite struct RoleConfigTests {
    /// `[fleet]` belongs to the fleet link (FleetConfig reads it from the same file): the role rules leave it alone.
    @Test func aFleetSectionIsLeftToTheFleetLink() throws {
        let config = try RoleConfig.parse(
            """
            [controller]
            fallback = "none"

            [fleet]
            broker = "mqtt://127.0.0.1:1883"
            site = "sfo"
            """)
        #expect(config.fallback == .none)
    }

    /// So is `[remote]`, the phone remote's (PhoneRemote's RemoteConfig reads it).
    @Test func aRemoteSectionIsLeftToThePhoneRemote() throws {
        let config = try RoleConfig.parse(
            "[controller]\nfallback = \"none\"\n\n[remote]\nlisten = \"127.0.0.1:8080\"\n")
        #expect(config.fallback == .none)
    }

    @Test func parsesTheDocumentedExample() throws {
        let config = try RoleConfig.parse(
            """
            # Which output is the controller when it is there; what externals show.
            [controller]
            fallback = "first"        # comment
            return = true

            [[rule]]
            match = { name = "HDMI-A-1" }
            role = "controller"

            [[rule]]
            match = { make = "Dell*" }
            role = "external"
            content = "mirror"

            [[rule]]
            match = { description = "Ei?o Kiosk*", model = "X1" }
            role = "rear-seat"
            """)
        #expect(config.fallback == .first)
        #expect(config.returnsToPreferred)
        #expect(
            config.rules == [
                .init(match: OutputMatch(name: "HDMI-A-1"), role: .controller),
                .init(match: OutputMatch(make: "Dell*"), role: .external, content: .mirror),
                .init(
                    match: OutputMatch(description: "Ei?o Kiosk*", model: "X1"),
                    role: ScreenRole(rawValue: "rear-seat")),
            ])
    }

    @Test func emptyFileGivesDefaults() throws {
        #expect(try RoleConfig.parse("# nothing here\n") == RoleConfig())
        let other = try RoleConfig.parse("[controller]\nfallback = \"none\"\nreturn = false\n")
        #expect(other.fallback == .none)
        #expect(!other.returnsToPreferred)
    }

    /// Found by scripts/fuzz (FuzzRoleConfig): these headers abort TOMLKit's toml++ in a debug build (an assertion)
    /// and are undefined behaviour in a release build; they must be a syntax error with where it is, never reach it.
    @Test(arguments: [
        ("[\\", 1, 2), ("[=", 1, 2), ("[ #", 1, 3), ("[[[", 1, 3), ("[\n", 1, 2), ("[\r\n", 1, 2),
        ("[controller]\n [[ =\n", 2, 5), ("\u{FEFF}[\u{FFFD}e]]", 1, 2),
        // The fuzzer's own input, as it found it.
        ("[\\[ru\0\0\0\n\nmatch = { descrid = \"#102030\"\ntext = \"#ffffff\"\n", 1, 2),
        // After a line ending in CRLF (one Swift Character), found by the fuzzer the same way.
        ("[controller]\nfallback = \"none\"\n# comment\r\n[\u{FFFD}\u{FFFD}]\n", 4, 2),
    ])
    func aTableHeaderWithoutAKeyIsASyntaxErrorNotACrash(text: String, line: Int, column: Int) {
        #expect {
            try RoleConfig.parse(text)
        } throws: { error in
            guard case .syntax(_, line, column, let message) = error as? RoleConfigError else { return false }
            return message.contains("a table header must start with a key")
        }
    }

    /// Where an array expects a value, toml++ 3.4.0 asserts that one starts: a `}` or a line separator there
    /// aborted Multiscreen (found by scripts/fuzz, 10 minutes of FuzzRoleConfig).
    @Test(arguments: [
        ("a = [}", 1, 6), ("a = [1, }", 1, 9), ("a = [ [ }", 1, 9), ("a = [#c\n}]", 2, 1), ("a = [1,#c\r\n}", 2, 1),
        ("a = {x = [}]}", 1, 11), ("a = [\u{2028}1]", 1, 6), ("a = [1,\u{2029}]", 1, 8), ("a = [\u{85}]", 1, 6),
        // The fuzzer's input up to its first invalid UTF-8 (the whole input is in Fuzz/Corpus/FuzzRoleConfig).
        ("desc4back =[[}\u{0}13", 1, 14),
    ])
    func anArrayWithoutAValueWhereOneIsExpectedIsASyntaxErrorNotACrash(text: String, line: Int, column: Int) {
        #expect {
            try RoleConfig.parse(text)
        } throws: { error in
            guard case .syntax(_, line, column, let message) = error as? RoleConfigError else { return false }
            return message.contains("an array value is missing")
        }
    }

    /// The same characters where toml++ handles them, in strings and comments, parse as before.
    @Test func bracesAndSeparatorsInStringsAndCommentsStillParse() throws {
        let config = try RoleConfig.parse(
            "# [}\n[controller]\nfallback = \"first\" # , }\n[[rule]]\nmatch = { name = \"[}\" }\n"
                + "role = 'controller'\n[[rule]]\nmatch = { description = \"\"\"a [ , }\"\"\" }\nrole = \"x\"\n")
        #expect(config.rules.count == 2)
        #expect(config.rules.first?.match == OutputMatch(name: "[}"))
    }

    @Test func tableHeadersThatStartWithAKeyStillParse() throws {
        let config = try RoleConfig.parse(
            "[ controller ]\nreturn = false\n[[ rule ]]\nmatch = { name = \"A\" }\nrole = \"controller\"\n"
                + "[\"theme\"]\ninfo = true\n")
        #expect(!config.returnsToPreferred && config.rules.count == 1)
    }

    @Test func syntaxErrorHasLineAndColumn() {
        #expect {
            try RoleConfig.parse("[controller]\nfallback = \"first\"\nreturn = \n")
        } throws: { error in
            guard case .syntax(_, let line, let column, let message) = error as? RoleConfigError else { return false }
            return line == 3 && column > 1 && !message.isEmpty
        }
    }

    @Test(arguments: [
        ("[controler]\n", "controler"),
        ("[controller]\nfalback = \"first\"\n", "controller.falback"),
        ("[[rule]]\nmatch = { nmae = \"HDMI-A-1\" }\nrole = \"controller\"\n", "rule[1].match.nmae"),
        (
            "[[rule]]\nmatch = { name = \"A\" }\nrole = \"external\"\n[[rule]]\nmatch = { name = \"B\" }\nrol = \"x\"\n",
            "rule[2].rol"
        ),
    ])
    func unknownKeysAreNamed(text: String, key: String) {
        #expect(throws: RoleConfigError.self) { try RoleConfig.parse(text) }
        do {
            _ = try RoleConfig.parse(text)
        } catch {
            guard case .unknownKey(_, let found, _) = error else {
                Issue.record("expected unknownKey, got \(error)")
                return
            }
            #expect(found == key)
            #expect(error.description.contains("'\(key)'"))
        }
    }

    @Test func invalidValuesAreErrors() {
        func error(_ text: String) -> RoleConfigError? {
            do {
                _ = try RoleConfig.parse(text)
                return nil
            } catch { return error }
        }
        #expect(
            error("[[rule]]\nmatch = { name = \"A\" }\nrole = \"Controller!\"\n")
                == .invalidValue(
                    file: nil, key: "rule[1].role", value: "Controller!",
                    reason: "a role is \"controller\", \"external\" or another lowercase name of letters, digits and -")
        )
        guard
            case .invalidValue(_, "rule[1].content", "slideshow", _) = error(
                "[[rule]]\nmatch = { name = \"A\" }\nrole = \"external\"\ncontent = \"slideshow\"\n")
        else {
            Issue.record("content mode not refused")
            return
        }
        guard case .invalidValue(_, "controller.fallback", "last", _) = error("[controller]\nfallback = \"last\"\n")
        else {
            Issue.record("fallback not refused")
            return
        }
        #expect(
            error("[controller]\nreturn = \"yes\"\n")
                == .wrongType(file: nil, key: "controller.return", expected: "true or false"))
        #expect(error("[[rule]]\nrole = \"external\"\n") == .missingKey(file: nil, key: "rule[1].match"))
        #expect(error("[[rule]]\nmatch = { name = \"A\" }\n") == .missingKey(file: nil, key: "rule[1].role"))
        #expect(
            error("[[rule]]\nmatch = { name = 3 }\nrole = \"external\"\n")
                == .wrongType(file: nil, key: "rule[1].match.name", expected: "a string"))
        guard case .invalidValue(_, "rule[1].match", _, _) = error("[[rule]]\nmatch = {}\nrole = \"external\"\n") else {
            Issue.record("empty match not refused")
            return
        }
        guard case .wrongType(_, "rule", _) = error("[rule]\nmatch = { name = \"A\" }\nrole = \"external\"\n") else {
            Issue.record("[rule] instead of [[rule]] not refused")
            return
        }
    }

    @Test func globs() {
        #expect(Glob.matches("Dell*", "Dell Inc."))
        #expect(Glob.matches("*", ""))
        #expect(Glob.matches("HDMI-A-?", "HDMI-A-1"))
        #expect(!Glob.matches("HDMI-A-?", "HDMI-A-10"))
        #expect(Glob.matches("*U27*Q", "DELL U2720Q"))
        #expect(!Glob.matches("*U27*Q", "DELL U2720QM"))
        #expect(Glob.matches("a*b*c", "aXXbYYbZZc"))
        #expect(!Glob.matches("Dell", "dell"), "case-sensitive")
        #expect(!Glob.matches("Dell", "Dell Inc."), "exact without wildcards")
    }

    @Test func matchUsesNameDescriptionMakeModel() {
        let dell = monitor(3, "DP-2", make: "Dell Inc.", model: "DELL U2720Q", serial: "5KC0")
        #expect(OutputMatch(name: "DP-2").matches(dell))
        #expect(OutputMatch(name: "DP-*", make: "Dell*").matches(dell))
        #expect(!OutputMatch(name: "DP-2", make: "LG*").matches(dell), "every field given must match")
        #expect(OutputMatch(description: "Dell Inc. DELL U2720Q 5KC0").matches(dell), "without the connector")
        #expect(OutputMatch(description: "Dell Inc. DELL U2720Q 5KC0 (DP-2)").matches(dell), "as printed")
        #expect(OutputMatch(model: "DELL U27??Q").matches(dell))
    }

    @Test func loadMissingFileGivesDefaultsAndBrokenFileNamesIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rolecfg-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try RoleConfig.load(path: directory + "/missing.toml") == RoleConfig())
        let path = directory + "/config.toml"
        try "[controller]\nretrun = true\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try RoleConfig.load(path: path)
            Issue.record("typo accepted")
        } catch {
            #expect(error == .unknownKey(file: path, key: "controller.retrun", expected: ["fallback", "return"]))
            #expect(error.description.hasPrefix(path + ": unknown key 'controller.retrun'"))
        }
        try "[[rule]]\nmatch = { make = \"Dell*\" }\nrole = \"controller\"\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(try RoleConfig.load(path: path).rules.count == 1)
    }

    /// A config named explicitly must exist; a directory or an unreadable file says exactly what is wrong; a file
    /// that reads as empty (`/dev/null`) is a config with no rules.
    @Test func explicitConfigErrorsSayWhatIsWrong() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rolecfg-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(
            throws: RoleConfigError.unreadable(
                file: directory + "/nope.toml", reason: "no such file (it was named explicitly)")
        ) {
            try RoleConfig.load(path: directory + "/nope.toml", mustExist: true)
        }
        #expect(throws: RoleConfigError.unreadable(file: directory, reason: "is a directory, not a config file")) {
            try RoleConfig.load(path: directory, mustExist: true)
        }
        #expect(try RoleConfig.load(path: "/dev/null", mustExist: true) == RoleConfig())
        let path = directory + "/binary.toml"
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: path))
        #expect(throws: RoleConfigError.unreadable(file: path, reason: "not UTF-8 text")) {
            try RoleConfig.load(path: path)
        }
    }

    @Test func defaultPathFollowsXDG() {
        #expect(
            RoleConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "/etc/xdg-test", "HOME": "/home/k"])
                == "/etc/xdg-test/multiscreen/config.toml")
        #expect(
            RoleConfig.defaultPath(environment: ["HOME": "/home/k"]) == "/home/k/.config/multiscreen/config.toml")
        #expect(
            RoleConfig.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/k"])
                == "/home/k/.config/multiscreen/config.toml")
    }
}
