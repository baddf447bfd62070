import Messaging
import Testing

@testable import WebContent

/// The `[web]` section: what it grants per origin, the memory limit, and the precise errors for what it cannot use.
struct WebConfigTests {
    @Test func aSectionGrantsMethodsPerOriginAndSetsTheMemoryLimit() throws {
        let config = try WebConfig.parse(
            """
            [rule]
            ignored = "the role rules are not this reader's business"

            [web]
            memory_limit = 512

            [web.permissions]
            "https://Signage.example.org:443/" = ["send", "card.*", "content.set"]
            "http://localhost:8080" = []
            "file://" = ["status"]
            """)
        #expect(config.memoryLimitMiB == 512)
        let permissions = config.permissions
        #expect(
            permissions.byOrigin["https://signage.example.org"]
                == [.send, .openCard, .closeCard, .reopenCard, .discardCard, .setContent])
        #expect(permissions.methods(forPageAt: "http://localhost:8080/app/").methods.isEmpty)
        #expect(permissions.methods(forPageAt: "file:///srv/app/main.html") == ("file://", [.status]))
        #expect(
            permissions.methods(forPageAt: "HTTPS://signage.EXAMPLE.org/x?y").origin == "https://signage.example.org")
        // An origin the section does not name gets the default.
        #expect(
            permissions.methods(forPageAt: "https://other.example.org/").methods == PagePermissions.defaultMethods)
        #expect(try WebConfig.parse("[controller]\nfallback = \"none\"\n") == WebConfig())
    }

    @Test(arguments: [
        ("[web]\nmemory_limit = \"512\"", "'web.memory_limit' must be a whole number of MiB from 64 to 1048576"),
        ("[web]\nmemory_limit = 0", "'web.memory_limit' must be a whole number of MiB from 64 to 1048576, got 0"),
        ("[web]\nmemory_limit = 32", "got 32"),
        ("[web]\nmemory_limit = 5000000", "got 5000000"),
        ("[web]\nmemory_limt = 512", "unknown key 'web.memory_limt' (expected one of: memory_limit, permissions)"),
        ("web = 1", "'web' must be a table ([web])"),
        ("[web]\npermissions = [\"send\"]", "'web.permissions' must be a table of origins"),
        (
            "[web.permissions]\n\"https://a.example\" = [\"sned\"]",
            "'web.permissions.\"https://a.example\"': \"sned\" is not a method a page may be granted"
        ),
        ("[web.permissions]\n\"https://a.example\" = [\"events\"]", "\"events\" is not a method a page may be granted"),
        ("[web.permissions]\n\"https://a.example\" = \"send\"", "must be an array of method names"),
        (
            "[web.permissions]\n\"https://a.example/app\" = [\"send\"]",
            "\"https://a.example/app\" is not an origin (http(s)://host[:port], or file:// for local pages)"
        ),
        ("[web.permissions]\n\"a.example\" = [\"send\"]", "\"a.example\" is not an origin"),
        ("[web.permissions]\n\"ftp://a.example\" = [\"send\"]", "\"ftp://a.example\" is not an origin"),
        ("[web]\nmemory_limit = 512\u{7}x", "line 2, column 19"),
    ])
    func whatCannotBeUsedIsNamed(text: String, expected: String) {
        #expect(throws: WebConfigError.self) { try WebConfig.parse(text) }
        do {
            _ = try WebConfig.parse(text)
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
        }
    }
}
