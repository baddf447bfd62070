import Messaging
import Outputs
import Testing

@testable import PhoneRemote

/// `[remote]` as written in config.toml: every key, and a precise error for each kind of bad value.
@Suite struct RemoteConfigTests {
    @Test func readsEveryKey() throws {
        let config = try #require(
            try RemoteConfig.parse(
                """
                [controller]
                fallback = "first"

                [remote]
                listen = "192.168.1.20:8443"
                ttl = 120
                idle = 30.5
                hold = 600
                allow_origins = ["kiosk.example.org", "https://Lobby.example.org:8443/"]
                tls_cert = "/etc/multiscreen/remote.pem"
                tls_key = "/etc/multiscreen/remote.key"
                methods = ["send", "card.open", "card.close"]
                qr_position = "top-left"
                qr_screens = ["HDMI-A-2", "DP-1"]
                """))
        #expect(config.listen == ListenAddress(host: "192.168.1.20", port: 8443))
        #expect(config.ttl == 120)
        #expect(config.idle == 30.5)
        #expect(config.hold == 600)
        #expect(config.allowOrigins == ["kiosk.example.org", "lobby.example.org:8443"])
        #expect(config.tls == TLSFiles(certificate: "/etc/multiscreen/remote.pem", key: "/etc/multiscreen/remote.key"))
        #expect(config.methods == [.send, .openCard, .closeCard])
        #expect(config.qrPlacement == RemoteOfferPlacement(corner: .topLeft, screens: ["HDMI-A-2", "DP-1"]))
    }

    /// Without `qr_position` and `qr_screens`: bottom right, on every external screen showing messages; an empty
    /// list shows it nowhere.
    @Test func theQRCodesPlacementDefaults() throws {
        let placement = try #require(try RemoteConfig.parse("[remote]\nlisten = 8080\n")).qrPlacement
        #expect(placement.corner == .bottomRight)
        #expect(placement.shows(onScreenNamed: "HDMI-A-1") && placement.shows(onScreenNamed: "anything"))
        let chosen = try #require(try RemoteConfig.parse("[remote]\nqr_screens = [\"DP-2\"]\n")).qrPlacement
        #expect(chosen.shows(onScreenNamed: "DP-2") && !chosen.shows(onScreenNamed: "DP-1"))
        let none = try #require(try RemoteConfig.parse("[remote]\nqr_screens = []\n")).qrPlacement
        #expect(!none.shows(onScreenNamed: "DP-2"))
    }

    @Test func absentSectionIsNil() throws {
        #expect(try RemoteConfig.parse("[theme]\nfont = \"DejaVu Sans\"\n") == nil)
        #expect(try RemoteConfig.load(path: "/nonexistent/config.toml") == nil)
        #expect(try RemoteConfig.load(path: "/dev/null") == nil)  // `run --config /dev/null`: no config at all
    }

    @Test func aPortAloneListensOnLoopback() throws {
        #expect(
            try RemoteConfig.parse("[remote]\nlisten = 8080\n")?.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(
            try RemoteConfig.parse("[remote]\nlisten = \"[::1]:8080\"\n")?.listen
                == ListenAddress(host: "::1", port: 8080))
        // A section without `listen` is valid on its own: `run --remote` may give the address.
        #expect(try RemoteConfig.parse("[remote]\nttl = 60\n")?.listen == nil)
    }

    @Test(arguments: [
        ("[remote]\nport = 80\n", "unknown key 'remote.port' (expected one of: listen, ttl, idle, hold"),
        ("remote = 3\n", "'remote' must be a table"),
        ("[remote]\nttl = -5\n", "'remote.ttl' must be a number of seconds above 0 and at most 86400, got -5.0"),
        ("[remote]\nidle = 0\n", "'remote.idle' must be a number of seconds above 0"),
        ("[remote]\nhold = 100000\n", "'remote.hold' must be a number of seconds above 0 and at most 86400"),
        ("[remote]\nhold = \"5m\"\n", "'remote.hold' must be a number of seconds"),
        ("[remote]\nlisten = \"host:99999\"\n", "remote.listen wants [HOST:]PORT with a port from 0 to 65535"),
        ("[remote]\nlisten = true\n", "'remote.listen' must be a string"),
        ("[remote]\ntls_cert = \"/c.pem\"\n", "'remote.tls_cert' and 'remote.tls_key' go together"),
        ("[remote]\ntls_key = \"\"\n", "'remote.tls_key' must be a non-empty string"),
        ("[remote]\nmethods = [\"role.set\", \"events.subscribe\"]\n", "\"events.subscribe\" is not a method a remote"),
        ("[remote]\nmethods = \"send\"\n", "'remote.methods' must be an array of strings"),
        ("[remote]\nallow_origins = [\"https://evil.example/path\"]\n", "is not a host name, host:port or origin"),
        ("[remote]\nallow_origins = [\"a\\u0007b\"]\n", "\"a\\u{7}b\" is not a host name"),
        (
            "[remote]\nqr_position = \"middle\"\n",
            "'remote.qr_position' must be one of top-left, top-right, bottom-left, bottom-right, got \"middle\""
        ),
        ("[remote]\nqr_position = 3\n", "'remote.qr_position' must be one of top-left, top-right, bottom-left"),
        ("[remote]\nqr_screens = \"HDMI-A-1\"\n", "'remote.qr_screens' must be an array of strings"),
        ("[remote]\nqr_screens = [\"\"]\n", "'remote.qr_screens': \"\" is not an output name"),
        ("[remote]\nqr_screens = [\"DP\\u0007\"]\n", "'remote.qr_screens': \"DP\\u{7}\" is not an output name"),
        ("[remote\n", "line 1"),
        // A header toml++ 3.4.0 would abort (debug) or misparse (release) on: refused before it sees it.
        ("[remote]\nlisten = \"127.0.0.1:8080\"\n[\\\n", "line 3, column 2: a table header must start with a key"),
    ])
    func badValuesAreNamed(text: String, expected: String) {
        do {
            _ = try RemoteConfig.parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
            // Logged as is: no raw control character may reach the log.
            #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test func grantedMethodsMayIncludeOperatorMethodsButNeverTheTransportsOwn() throws {
        let config = try RemoteConfig.parse("[remote]\nmethods = [\"role.set\", \"status\"]\n")
        #expect(config?.methods == [.setRole, .status])
        #expect(!RemoteConfig.grantableMethods.contains(.subscribeEvents))
        #expect(!RemoteConfig.grantableMethods.contains(.remoteOffer))
        #expect(!RemoteConfig.grantableMethods.contains(.remoteActivity))
    }
}
