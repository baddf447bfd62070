import Outputs
import Testing

@testable import Screens

@Suite struct RoleAssignerTests {
    let a = monitor(1, "HDMI-A-1", serial: "AAA")
    let b = monitor(2, "HDMI-A-2", serial: "BBB")
    let c = monitor(3, "HDMI-A-10", serial: "CCC")
    let dell = monitor(4, "DP-1", make: "Dell Inc.", model: "U2720Q", serial: "DDD")

    /// The same monitor plugged into another connector: a new registry name, a new connector name.
    func replugged(_ output: OutputInfo, as registryName: UInt32, _ name: String) -> OutputInfo {
        let parts = output.description!.split(separator: " ")
        return monitor(
            registryName, name, make: output.make, model: output.model, serial: String(parts[parts.count - 2]))
    }

    func config(_ text: String) -> RoleConfig { try! RoleConfig.parse(text) }

    @Test func withoutRulesTheFirstOutputInNaturalOrderIsTheController() {
        var assigner = RoleAssigner()
        let result = assigner.assign([c, b, a])
        #expect(result.controller == 1)
        #expect(!result.controllerIsStandIn)
        #expect(result.roles == [1: .controller, 2: .external, 3: .external])
        #expect(result.contents == [2: .messages, 3: .messages])
        #expect(result.warnings.isEmpty)
        #expect(
            result.changes == [
                .role(output: "HDMI-A-1", from: nil, to: .controller),
                .role(output: "HDMI-A-2", from: nil, to: .external),
                .role(output: "HDMI-A-10", from: nil, to: .external),
                .controllerMoved(from: nil, to: "HDMI-A-1", standIn: false),
                .content(output: "HDMI-A-2", from: nil, to: .messages),
                .content(output: "HDMI-A-10", from: nil, to: .messages),
            ])
        #expect(assigner.assign([a, b, c]).changes.isEmpty, "nothing changed, nothing reported")
    }

    @Test func zeroOutputsHaveNoController() {
        var assigner = RoleAssigner()
        let empty = assigner.assign([])
        #expect(empty.controller == nil)
        #expect(empty.roles.isEmpty)
        #expect(empty.changes.isEmpty)
        assigner.assign([a])
        let gone = assigner.assign([])
        #expect(gone.controller == nil)
        #expect(
            gone.changes == [
                .role(output: "HDMI-A-1", from: .controller, to: nil),
                .controllerMoved(from: "HDMI-A-1", to: nil, standIn: false),
            ])
    }

    @Test func rulesDecideRolesAndContent() {
        var assigner = RoleAssigner(
            config: config(
                """
                [[rule]]
                match = { name = "HDMI-A-2" }
                role = "controller"
                [[rule]]
                match = { make = "Dell*" }
                role = "external"
                content = "mirror"
                [[rule]]
                match = { name = "HDMI-A-1" }
                role = "rear-seat"
                content = "blank"
                """))
        let result = assigner.assign([a, b, dell])
        #expect(result.controller == 2)
        #expect(result.roles == [1: ScreenRole(rawValue: "rear-seat"), 2: .controller, 4: .external])
        #expect(result.contents == [1: .blank, 4: .mirror])
    }

    @Test func unmatchedOutputsAreExternalAndTheFirstUnclaimedIsControllerWhenNoneIsConfigured() {
        var assigner = RoleAssigner(config: config("[[rule]]\nmatch = { make = \"Dell*\" }\nrole = \"external\"\n"))
        let result = assigner.assign([dell, b, a])
        // DP-1 sorts first but is claimed external; HDMI-A-1 is the first unclaimed output.
        #expect(result.controller == 1)
        #expect(result.roles == [1: .controller, 2: .external, 4: .external])
    }

    @Test func everyOutputExplicitlyExternalMeansNoController() {
        var assigner = RoleAssigner(config: config("[[rule]]\nmatch = { name = \"*\" }\nrole = \"external\"\n"))
        let result = assigner.assign([a, b])
        #expect(result.controller == nil)
        #expect(result.roles == [1: .external, 2: .external])
    }

    @Test func memoryBeatsRules() {
        let memory = ScreenMemory(
            roles: [OutputIdentity(b).key: .controller, OutputIdentity(a).key: .external],
            contents: [OutputIdentity(a).key: .card])
        var assigner = RoleAssigner(
            config: config(
                "[[rule]]\nmatch = { name = \"HDMI-A-1\" }\nrole = \"controller\"\ncontent = \"mirror\"\n"),
            memory: memory)
        let result = assigner.assign([a, b])
        #expect(result.controller == 2)
        #expect(result.roles == [1: .external, 2: .controller])
        #expect(result.contents == [1: .card], "remembered content beats the rule's")
    }

    @Test func aMonitorKeepsItsSetRoleWhenReplugedIntoAnotherConnector() throws {
        var assigner = RoleAssigner()
        assigner.assign([a, b, c])
        try assigner.set(role: .controller, forOutputNamed: "HDMI-A-10")
        try assigner.set(content: .blank, forOutputNamed: "HDMI-A-2")
        #expect(assigner.assignment.controller == 3)
        assigner.assign([a, b])
        let moved = replugged(c, as: 9, "DP-7")
        let bMoved = replugged(b, as: 8, "DP-8")
        let result = assigner.assign([a, moved, bMoved])
        #expect(result.controller == 9, "the monitor, not the connector, is the controller")
        #expect(result.roles[9] == .controller)
        #expect(result.contents[8] == .blank)
    }

    @Test func theDefaultControllerGetsItsUIBackWhenReplugedIntoALaterConnector() {
        var assigner = RoleAssigner()
        assigner.assign([a, b])
        let away = assigner.assign([b])
        #expect(away.controller == 2)
        #expect(away.controllerIsStandIn)
        #expect(away.changes.contains(.controllerMoved(from: "HDMI-A-1", to: "HDMI-A-2", standIn: true)))
        let back = assigner.assign([b, replugged(a, as: 7, "HDMI-A-3")])
        #expect(back.controller == 7)
        #expect(!back.controllerIsStandIn)
        #expect(back.roles == [2: .external, 7: .controller])
        #expect(back.changes.contains(.controllerMoved(from: "HDMI-A-2", to: "HDMI-A-3", standIn: false)))
        #expect(assigner.memory == ScreenMemory(), "neither the default nor the stand-in is remembered")
    }

    @Test func fallbackFirstLetsTheFirstRemainingOutputStandIn() {
        var assigner = RoleAssigner(
            config: config("[[rule]]\nmatch = { name = \"HDMI-A-2\" }\nrole = \"controller\"\n"))
        #expect(assigner.assign([a, b, c]).controller == 2)
        let result = assigner.assign([a, c])
        #expect(result.controller == 1)
        #expect(result.controllerIsStandIn)
        #expect(result.roles == [1: .controller, 3: .external])
        #expect(result.contents == [3: .messages])
        #expect(
            result.changes == [
                .role(output: "HDMI-A-1", from: .external, to: .controller),
                .role(output: "HDMI-A-2", from: .controller, to: nil),
                .controllerMoved(from: "HDMI-A-2", to: "HDMI-A-1", standIn: true),
                .content(output: "HDMI-A-1", from: .messages, to: nil),
            ])
        #expect(assigner.memory == ScreenMemory())
        // It returns: the UI moves back (return = true is the default).
        let back = assigner.assign([a, b, c])
        #expect(back.controller == 2)
        #expect(!back.controllerIsStandIn)
        #expect(back.roles == [1: .external, 2: .controller, 3: .external])
    }

    @Test func fallbackNoneLeavesNoControllerUntilItReturns() {
        var assigner = RoleAssigner(
            config: config(
                """
                [controller]
                fallback = "none"
                [[rule]]
                match = { name = "HDMI-A-2" }
                role = "controller"
                """))
        assigner.assign([a, b])
        let gone = assigner.assign([a])
        #expect(gone.controller == nil)
        #expect(gone.roles == [1: .external])
        #expect(gone.changes.contains(.controllerMoved(from: "HDMI-A-2", to: nil, standIn: false)))
        #expect(assigner.assign([a, b]).controller == 2)
    }

    @Test func returnFalseKeepsTheStandIn() {
        var assigner = RoleAssigner(
            config: config(
                """
                [controller]
                return = false
                [[rule]]
                match = { name = "HDMI-A-2" }
                role = "controller"
                """))
        assigner.assign([a, b])
        #expect(assigner.assign([a]).controller == 1)
        let back = assigner.assign([a, b])
        #expect(back.controller == 1, "the stand-in keeps the UI")
        #expect(back.controllerIsStandIn)
        #expect(back.roles == [1: .controller, 2: .external])
        // When the stand-in goes away, the preferred controller takes over.
        let standInGone = assigner.assign([b])
        #expect(standInGone.controller == 2)
        #expect(!standInGone.controllerIsStandIn)
    }

    @Test func aControllerSetByMemoryThatIsAbsentTriggersTheFallback() {
        let absent = monitor(5, "DP-5", serial: "ZZZ")
        var assigner = RoleAssigner(memory: ScreenMemory(roles: [OutputIdentity(absent).key: .controller]))
        let result = assigner.assign([a, b])
        #expect(result.controller == 1)
        #expect(result.controllerIsStandIn)
        #expect(assigner.assign([a, b, absent]).controller == 5)
    }

    @Test func twoControllerClaimsFirstWinsWithAWarning() {
        var assigner = RoleAssigner(
            config: config(
                """
                [[rule]]
                match = { name = "HDMI-A-10" }
                role = "controller"
                [[rule]]
                match = { name = "HDMI-A-2" }
                role = "controller"
                """))
        let result = assigner.assign([c, b, a])
        #expect(result.controller == 2, "HDMI-A-2 comes before HDMI-A-10 in output order")
        #expect(result.roles == [1: .external, 2: .controller, 3: .external])
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("HDMI-A-10 also claims the controller role") == true)
    }

    @Test func settingASecondControllerDemotesTheOldOneAndRemembersIt() throws {
        var assigner = RoleAssigner(
            config: config("[[rule]]\nmatch = { name = \"HDMI-A-1\" }\nrole = \"controller\"\n"))
        assigner.assign([a, b])
        let result = try assigner.set(role: .controller, forOutputNamed: "HDMI-A-2")
        #expect(result.controller == 2)
        #expect(result.roles == [1: .external, 2: .controller])
        #expect(result.warnings.isEmpty, "no conflicting claims are left")
        #expect(
            assigner.memory.roles == [OutputIdentity(a).key: .external, OutputIdentity(b).key: .controller])
        #expect(
            result.changes == [
                .role(output: "HDMI-A-1", from: .controller, to: .external),
                .role(output: "HDMI-A-2", from: .external, to: .controller),
                .controllerMoved(from: "HDMI-A-1", to: "HDMI-A-2", standIn: false),
                .content(output: "HDMI-A-1", from: nil, to: .messages),
                .content(output: "HDMI-A-2", from: .messages, to: nil),
            ])
    }

    @Test func demotingTheDefaultControllerMovesTheUIToTheNextUnclaimedOutput() throws {
        var assigner = RoleAssigner()
        assigner.assign([a, b])
        let result = try assigner.set(role: .external, forOutputNamed: "HDMI-A-1")
        #expect(result.controller == 2)
        #expect(!result.controllerIsStandIn)
    }

    @Test func settingForAnUnknownOutputListsTheKnownOnes() {
        var assigner = RoleAssigner()
        assigner.assign([b, a])
        #expect(throws: UnknownScreenError(name: "HDMI-A-3", known: ["HDMI-A-1", "HDMI-A-2"])) {
            try assigner.set(role: .controller, forOutputNamed: "HDMI-A-3")
        }
        #expect(throws: UnknownScreenError.self) { try assigner.set(content: .mirror, forOutputNamed: "") }
        #expect(
            UnknownScreenError(name: "X", known: ["HDMI-A-1", "HDMI-A-2"]).description
                == "unknown screen 'X' (known: HDMI-A-1, HDMI-A-2)")
        #expect(assigner.memory == ScreenMemory(), "a failed set changes nothing")
    }

    @Test func setContentIsRememberedAndReported() throws {
        var assigner = RoleAssigner()
        assigner.assign([a, b])
        let result = try assigner.set(content: .mirror, forOutputNamed: "HDMI-A-2")
        #expect(result.contents == [2: .mirror])
        #expect(result.changes == [.content(output: "HDMI-A-2", from: .messages, to: .mirror)])
        #expect(assigner.memory.contents == [OutputIdentity(b).key: .mirror])
    }

    @Test func identicalMonitorsAreReported() {
        var twin = monitor(2, "HDMI-A-2", serial: "AAA")
        twin.description = "ACME Panel AAA (HDMI-A-2)"
        var assigner = RoleAssigner()
        let result = assigner.assign([a, twin])
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("look like the same monitor") == true)
    }

    @Test func changeDescriptionsReadWell() {
        #expect(
            RoleChange.controllerMoved(from: "HDMI-A-1", to: "HDMI-A-2", standIn: false).description
                == "controller moved from HDMI-A-1 to HDMI-A-2")
        #expect(
            RoleChange.role(output: "DP-1", from: .controller, to: .external).description
                == "DP-1: role controller → external")
    }
}
