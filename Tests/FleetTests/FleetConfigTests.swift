import Fleet
import Testing

@Suite struct FleetConfigTests {
    @Test func theDocumentedSection() throws {
        let config = try #require(
            try FleetConfig.parse(
                """
                [controller]
                fallback = "first"

                [fleet]
                broker = "mqtts://broker.example.org"
                site = "sfo"
                kiosk = "t2-gate-a"
                groups = ["terminal-2"]
                ca = "/etc/multiscreen/ca.pem"
                credentials = "/etc/multiscreen/mqtt.pass"
                """))
        #expect(config.broker == (try BrokerAddress("mqtts://broker.example.org:8883")))
        #expect(config.broker.tls)
        #expect(config.site == "sfo")
        #expect(config.kiosk == "t2-gate-a")
        #expect(config.groups == ["terminal-2"])
        #expect(config.caFile == "/etc/multiscreen/ca.pem")
        #expect(config.credentialsFile == "/etc/multiscreen/mqtt.pass")
        #expect(
            config.topics.commands(groups: config.groups) == [
                "multiscreen/sfo/t2-gate-a/cmd", "multiscreen/sfo/terminal-2/cmd", "multiscreen/sfo/all/cmd",
            ])
        #expect(config.topics.status == "multiscreen/sfo/t2-gate-a/status")
    }

    /// The same text as config.toml: refused before TOMLKit's toml++ sees it (it aborts on it), see RoleConfigTests.
    @Test(arguments: ["[\\", "[fleet]\nbroker = \"mqtt://h\"\n[[ [\n"])
    func aTableHeaderWithoutAKeyIsAnErrorNotACrash(text: String) {
        #expect(throws: FleetConfigError.self) { try FleetConfig.parse(text) }
    }

    @Test func noSectionNoFleet() throws {
        #expect(try FleetConfig.parse("[controller]\nreturn = true\n") == nil)
        #expect(try FleetConfig.load(path: "/nonexistent/config.toml") == nil)
        #expect(try FleetConfig.load(path: "/dev/null") == nil)  // `run --config /dev/null`: no config at all
    }

    @Test func defaultsAndAllowedMethods() throws {
        let config = try #require(try FleetConfig.parse("[fleet]\nbroker = \"mqtt://127.0.0.1\"\n"))
        #expect(config.broker.port == 1883)
        #expect(config.site == "default")
        #expect(config.kiosk == FleetConfig.hostName())
        #expect(config.allows("send") && config.allows("card.open") && config.allows("card.close"))
        #expect(config.allows("status"))
        #expect(!config.allows("role.set") && !config.allows("outputs") && !config.allows("sendx"))
        let wider = try #require(
            try FleetConfig.parse("[fleet]\nbroker = \"mqtt://h:1\"\nallow = [\"send\", \"role.set\"]\n"))
        #expect(wider.allows("role.set") && !wider.allows("card.open"))
    }

    @Test(arguments: [
        ("[fleet]\nsite = \"x\"\n", "missing key 'fleet.broker'"),
        ("[fleet]\nbroker = \"http://h\"\n", "the scheme is mqtt:// or mqtts://"),
        ("[fleet]\nbroker = \"mqtt://user:pw@h\"\n", "credentials belong in the credentials file"),
        ("[fleet]\nbroker = \"mqtt://h:99999\"\n", "needs a host and a port"),
        ("[fleet]\nbroker = \"mqtt://h\"\nkiosk = \"a/b\"\n", "'fleet.kiosk' = \"a/b\""),
        // A control character from the file is escaped in the message (it goes to the log as it is).
        ("[fleet]\nbroker = \"mqtt://h\"\nkiosk = \"a\\u0007/b\"\n", "'fleet.kiosk' = \"a\\u{7}/b\""),
        ("[fleet]\nbroker = \"mqtt://h\"\ngroups = [\"#\"]\n", "'fleet.groups' = \"#\""),
        ("[fleet]\nbroker = \"mqtt://h\"\nkiosk = \"all\"\n", "\"all\" is the whole site"),
        ("[fleet]\nbroker = \"mqtt://h\"\nkiosk = \"k\"\ngroups = [\"k\"]\n", "the kiosk's own name"),
        ("[fleet]\nbroker = \"mqtt://h\"\nbrokr = \"x\"\n", "unknown key 'fleet.brokr'"),
        ("[fleet]\nbroker = \"mqtt://h\"\ngroups = \"g\"\n", "must be an array of strings"),
        ("[fleet]\nbroker = \"mqtt://h\"\ncert = \"c.pem\"\n", "go together"),
        ("[fleet]\nbroker = \"mqtt://h\"\nkeepalive = 1\n", "keepalive"),
    ])
    func refusedSections(text: String, expected: String) {
        do {
            _ = try FleetConfig.parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test func brokerAddresses() throws {
        let v6 = try BrokerAddress("mqtt://[::1]:1884")
        #expect(v6.host == "::1" && v6.port == 1884 && !v6.tls)
        #expect(try BrokerAddress("mqtt://h:1").description == "mqtt://h:1")
    }
}
