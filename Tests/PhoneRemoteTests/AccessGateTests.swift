import Messaging
import Testing

@testable import PhoneRemote

/// Deterministic "random" bytes: a counter, so codes differ from each other and tests can predict nothing else.
final class CountingBytes: @unchecked Sendable {
    private var next: UInt8 = 0
    func callAsFunction(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            next &+= 1
            return next
        }
    }
}

@Suite struct AccessGateTests {
    func makeGate(_ configure: (inout AccessPolicy) -> Void = { _ in }) -> AccessGate {
        var policy = AccessPolicy()
        configure(&policy)
        let bytes = CountingBytes()
        return AccessGate(policy: policy, randomBytes: { bytes($0) })
    }

    @Test func issuesACodeWithALongTokenAndAShortCode() throws {
        var gate = AccessGate()
        gate.advance(to: 0)
        let code = try #require(gate.code)
        #expect(code.token.count == 22)  // 16 bytes, base64url, no padding
        #expect(code.token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(code.short.count == AccessGate.shortLength)
        #expect(code.short.allSatisfy { AccessGate.shortAlphabet.contains($0) })
        #expect(gate.display == .code(code))
        var other = AccessGate()
        other.advance(to: 0)
        #expect(other.code?.token != code.token)
    }

    @Test func claimSpendsTheCodeAndHidesIt() throws {
        var gate = makeGate()
        gate.advance(to: 0)
        let code = try #require(gate.code)
        let claimed = try gate.claim(code.token, at: 1).get()
        #expect(claimed.superseded == nil)
        #expect(claimed.session.token.count == 43)  // 32 bytes
        #expect(gate.display == .inControl)
        #expect(gate.code == nil)
        #expect(try gate.authorize(claimed.session.token, at: 2).get() == claimed.session)
        // Replay of the spent code is named as such and does not count as a guess.
        #expect(throws: AccessRefusal.spentCode) { try gate.claim(code.token, at: 3).get() }
        #expect(gate.counters["refused.spent_code"] == 1)
        #expect(gate.counters["claims"] == 1)
    }

    @Test func shortCodeIgnoresCaseAndDashes() throws {
        var gate = makeGate()
        gate.advance(to: 0)
        let short = try #require(gate.code?.short)
        let typed = short.prefix(4).lowercased() + "-" + short.dropFirst(4).lowercased()
        #expect(throws: Never.self) { try gate.claim(typed, at: 1).get() }
    }

    @Test func newestClaimSupersedesAfterHold() throws {
        var gate = makeGate { $0.hold = 100 }
        gate.advance(to: 0)
        let first = try gate.claim(gate.code!.token, at: 0).get().session
        // During hold nobody sees a code.
        gate.advance(to: 50)
        #expect(gate.display == .inControl)
        _ = try gate.touch(first.token, at: 50).get()
        // After hold a fresh code is shown while the first controller keeps control until someone claims it.
        gate.advance(to: 100)
        let second = try #require(gate.code)
        _ = try gate.touch(first.token, at: 100).get()
        let claimed = try gate.claim(second.token, at: 101).get()
        #expect(claimed.superseded?.id == first.id)
        #expect(throws: AccessRefusal.superseded) { try gate.authorize(first.token, at: 102).get() }
        #expect(throws: AccessRefusal.superseded) { try gate.touch(first.token, at: 102).get() }
        #expect(gate.counters["supersessions"] == 1)
    }

    @Test func idleEndsControlAndBringsACodeBack() throws {
        var gate = makeGate { $0.idle = 60 }
        gate.advance(to: 0)
        let session = try gate.claim(gate.code!.token, at: 0).get().session
        _ = try gate.touch(session.token, at: 59).get()
        let early = gate.advance(to: 118)
        #expect(early == nil)
        let due = gate.advance(to: 119)
        let ended = try #require(due)
        #expect(ended.session.id == session.id)
        #expect(ended.reason == .idle)
        #expect(throws: AccessRefusal.idle) { try gate.authorize(session.token, at: 120).get() }
        guard case .code = gate.display else {
            Issue.record("no code after idle: \(gate.display)")
            return
        }
    }

    @Test func releaseBringsAFreshCodeBack() throws {
        var gate = makeGate()
        gate.advance(to: 0)
        let first = try #require(gate.code)
        let session = try gate.claim(first.token, at: 1).get().session
        let strangerReleased = gate.release("not-a-session", at: 2)
        #expect(!strangerReleased)
        let released = gate.release(session.token, at: 2)
        #expect(released)
        let fresh = try #require(gate.code)
        #expect(fresh != first)
        #expect(throws: AccessRefusal.released) { try gate.authorize(session.token, at: 3).get() }
        let releasedTwice = gate.release(session.token, at: 3)
        #expect(!releasedTwice)
    }

    @Test func unusedCodesExpireAfterTTL() throws {
        var gate = makeGate { $0.ttl = 300 }
        gate.advance(to: 0)
        let first = try #require(gate.code)
        gate.advance(to: 299)
        #expect(gate.code == first)
        gate.advance(to: 300)
        let second = try #require(gate.code)
        #expect(second != first)
        #expect(second.issuedAt == 300)
        #expect(throws: AccessRefusal.wrongCode) { try gate.claim(first.token, at: 301).get() }
        #expect(gate.counters["codesExpired"] == 1)
    }

    @Test func failureBudgetLocksAndRecovers() throws {
        var gate = makeGate {
            $0.failureBudget = 3
            $0.failureWindow = 60
            $0.lockout = 30
        }
        gate.advance(to: 0)
        let code = try #require(gate.code)
        #expect(throws: AccessRefusal.wrongCode) { try gate.claim("AAAAAAAA", at: 1).get() }
        #expect(throws: AccessRefusal.wrongCode) { try gate.claim("BBBBBBBB", at: 2).get() }
        #expect(throws: AccessRefusal.wrongCode) { try gate.claim("CCCCCCCC", at: 3).get() }
        #expect(gate.display == .locked(until: 33))
        // Even the right code is refused while locked.
        #expect(throws: AccessRefusal.locked) { try gate.claim(code.token, at: 10).get() }
        #expect(gate.counters["lockouts"] == 1)
        gate.advance(to: 33)
        #expect(gate.lockedUntil == nil)
        #expect(throws: Never.self) { try gate.claim(code.token, at: 33).get() }
    }

    /// Wrong codes lock out the address that sent them: its claims, the right code included, are refused for the
    /// lockout, while the right code from another address is taken. Nothing changes on screen.
    @Test func wrongCodesLockOutTheirAddressOnly() throws {
        var gate = makeGate {
            $0.addressFailureBudget = 3
            $0.failureBudget = 100
            $0.lockout = 30
        }
        gate.advance(to: 0)
        let code = try #require(gate.code)
        for time in 1...3 {
            #expect(throws: AccessRefusal.wrongCode) {
                try gate.claim("WRONG\(time)", from: "10.0.0.1", at: Double(time)).get()
            }
        }
        #expect(gate.isLockedOut("10.0.0.1", at: 4))
        #expect(gate.counters["addressLockouts"] == 1)
        #expect(gate.lockedAddressCount(at: 4) == 1)
        #expect(throws: AccessRefusal.locked) { try gate.claim(code.token, from: "10.0.0.1", at: 4).get() }
        // Only the global lockout shows on screen, and there is none.
        #expect(gate.display == .code(code))
        #expect(gate.lockedUntil == nil)
        #expect(gate.takeActivities().isEmpty)
        // Another address: its right code is taken.
        #expect(throws: Never.self) { try gate.claim(code.short, from: "10.0.0.2", at: 5).get() }
        // The lockout ends after its time.
        #expect(!gate.isLockedOut("10.0.0.1", at: 33))
        gate.advance(to: 33)
        #expect(gate.lockedAddressCount(at: 33) == 0)
        #expect(throws: AccessRefusal.spentCode) { try gate.claim(code.short, from: "10.0.0.1", at: 33).get() }
    }

    /// The global lockout is the last resort: wrong codes from many addresses, each within its own budget,
    /// together lock code entry for everyone (shown on screen).
    @Test func manyAddressesTogetherLockEveryoneOut() throws {
        var gate = makeGate {
            $0.addressFailureBudget = 3
            $0.failureBudget = 6
            $0.lockout = 30
        }
        gate.advance(to: 0)
        let code = try #require(gate.code)
        for address in 1...3 {
            for attempt in 1...2 {
                _ = gate.claim("WRONG\(attempt)", from: "10.0.0.\(address)", at: Double(address))
            }
        }
        #expect(gate.counters["addressLockouts"] == nil)
        #expect(gate.display == .locked(until: 33))
        #expect(gate.counters["lockouts"] == 1)
        #expect(throws: AccessRefusal.locked) { try gate.claim(code.token, from: "10.0.0.9", at: 10).get() }
        gate.advance(to: 33)
        #expect(throws: Never.self) { try gate.claim(code.token, from: "10.0.0.9", at: 33).get() }
    }

    /// The default budgets: one client is locked out long before it could lock out everyone.
    @Test func oneClientCannotTriggerTheGlobalLockout() throws {
        var gate = makeGate()
        gate.advance(to: 0)
        let code = try #require(gate.code)
        for attempt in 0..<1000 { _ = gate.claim("WRONG", from: "192.0.2.7", at: Double(attempt) * 0.01) }
        #expect(gate.lockedUntil == nil)
        #expect(gate.display == .code(code))
        #expect(gate.counters["refused.wrong_code"] == AccessPolicy().addressFailureBudget)
        #expect(throws: Never.self) { try gate.claim(code.token, from: "192.0.2.8", at: 10).get() }
    }

    /// The table of addresses stays within its bound: the address whose newest wrong code is oldest goes first.
    @Test func theAddressTableIsBounded() throws {
        var gate = makeGate {
            $0.addressFailureBudget = 3
            $0.trackedAddresses = 4
        }
        gate.advance(to: 0)
        // Two wrong codes from the first address, then one from each of nine others.
        _ = gate.claim("WRONG", from: "address-0", at: 1)
        _ = gate.claim("WRONG", from: "address-0", at: 2)
        for index in 1...9 { _ = gate.claim("WRONG", from: "address-\(index)", at: 2 + Double(index)) }
        #expect(gate.trackedAddressCount == 4)
        #expect(gate.counters["addressesForgotten"] == 6)
        // The newest addresses are remembered: two more wrong codes lock address-9 out.
        _ = gate.claim("WRONG", from: "address-9", at: 20)
        _ = gate.claim("WRONG", from: "address-9", at: 21)
        #expect(gate.isLockedOut("address-9", at: 22))
        #expect(gate.trackedAddressCount == 4)
        // New addresses push out the unlocked ones, never the locked-out one (forgetting it would unlock it).
        for index in 10...14 { _ = gate.claim("WRONG", from: "address-\(index)", at: 22 + Double(index) / 100) }
        #expect(gate.isLockedOut("address-9", at: 23))
        #expect(gate.trackedAddressCount == 4)
        // Entries whose wrong codes left the window are dropped.
        gate.advance(to: 200)
        #expect(gate.trackedAddressCount == 0)
    }

    @Test func failuresOutsideTheWindowAreForgotten() throws {
        var gate = makeGate {
            $0.failureBudget = 2
            $0.failureWindow = 10
        }
        gate.advance(to: 0)
        #expect(throws: AccessRefusal.wrongCode) { try gate.claim("x", at: 0).get() }
        #expect(throws: AccessRefusal.wrongCode) { try gate.claim("y", at: 11).get() }
        #expect(gate.lockedUntil == nil)
    }

    @Test func constantTimeEqualCompares() {
        #expect(AccessGate.constantTimeEqual("abc", "abc"))
        #expect(!AccessGate.constantTimeEqual("abd", "abc"))
        #expect(!AccessGate.constantTimeEqual("ab", "abc"))
        #expect(!AccessGate.constantTimeEqual("abcd", "abc"))
        #expect(!AccessGate.constantTimeEqual("", "abc"))
        #expect(AccessGate.constantTimeEqual("", ""))
    }

    @Test func base64URLHasNoUnsafeCharacters() {
        #expect(AccessGate.base64URL([0xfb, 0xff, 0xfe]) == "-__-")
        #expect(AccessGate.base64URL([0]) == "AA")
    }

    @Test func nextDeadlineIsTheEarliestLimit() throws {
        var gate = makeGate {
            $0.ttl = 300
            $0.idle = 60
            $0.hold = 200
            $0.closeGrace = 5
        }
        gate.advance(to: 0)
        // A code waiting: its expiry, and nothing sooner.
        #expect(gate.nextDeadline == 300)
        let code = try #require(gate.code)
        let session = try gate.claim(code.token, at: 10).get().session
        // In control: idle at 70 is sooner than the hold at 210.
        #expect(gate.nextDeadline == 70)
        _ = gate.touch(session.token, at: 50)
        #expect(gate.nextDeadline == 110)
        gate.pageClosed(session.token, at: 51)
        #expect(gate.nextDeadline == 56)
        gate.pageOpened(session.token, at: 53)
        #expect(gate.nextDeadline == 110)
        // Past the hold a code is shown again: its expiry joins the session's idle limit.
        var held = makeGate { $0.hold = 20 }
        held.advance(to: 0)
        let heldSession = try held.claim(try #require(held.code).token, at: 0).get().session
        #expect(held.nextDeadline == 20)
        _ = held.touch(heldSession.token, at: 19)
        held.advance(to: 20)
        #expect(held.code != nil)
        #expect(held.nextDeadline == 79)
    }

    @Test func aClosedPageReleasesControlAfterTheGraceUnlessItComesBack() throws {
        var gate = makeGate { $0.closeGrace = 5 }
        gate.advance(to: 0)
        let session = try gate.claim(try #require(gate.code).token, at: 0).get().session
        gate.pageClosed(session.token, at: 1)
        gate.pageOpened(session.token, at: 4)  // a reload
        gate.advance(to: 10)
        #expect(gate.session != nil)
        gate.pageClosed(session.token, at: 10)
        let early = gate.advance(to: 14.9)
        #expect(early == nil)
        let due = gate.advance(to: 15)
        let ended = try #require(due)
        #expect(ended.reason == .closed)
        #expect(gate.session == nil)
        #expect(gate.code != nil)
        #expect(throws: AccessRefusal.closed) { try gate.authorize(session.token, at: 16).get() }
        #expect(gate.counters["closedEnded"] == 1)
    }

    @Test func activitiesTellEveryChangeOfControlInOrder() throws {
        var gate = makeGate {
            $0.failureBudget = 2
            $0.lockout = 30
            $0.idle = 1000
        }
        gate.advance(to: 0)
        let first = try gate.claim(try #require(gate.code).token, at: 1).get().session
        gate.advance(to: AccessPolicy().hold + 1)
        let second = try gate.claim(try #require(gate.code).token, at: AccessPolicy().hold + 1).get().session
        _ = gate.release(second.token, at: AccessPolicy().hold + 2)
        _ = gate.claim("wrong", at: AccessPolicy().hold + 3)
        _ = gate.claim("wrong again", at: AccessPolicy().hold + 4)
        #expect(
            gate.takeActivities() == [
                RemoteActivity(kind: .claimed, session: UInt32(first.id)),
                RemoteActivity(kind: .claimed, session: UInt32(second.id)),
                RemoteActivity(kind: .superseded, session: UInt32(first.id), detail: "\(second.id)"),
                RemoteActivity(kind: .released, session: UInt32(second.id), detail: "release"),
                RemoteActivity(kind: .locked, session: 0, detail: "30"),
            ])
        #expect(gate.takeActivities().isEmpty)
        // Idling out is a release too.
        gate.advance(to: 2000)
        let third = try gate.claim(try #require(gate.code).token, at: 2000).get().session
        _ = gate.takeActivities()
        gate.advance(to: 3000)
        #expect(gate.takeActivities() == [RemoteActivity(kind: .released, session: UInt32(third.id), detail: "idle")])
    }
}
