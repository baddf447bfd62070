import Foundation
import Messaging

/// How long codes and sessions last and how many wrong codes are tolerated. Every duration is in seconds.
public struct AccessPolicy: Sendable, Equatable {
    /// An unused code is replaced after this long.
    public var ttl: Double = 300
    /// A controller who sends nothing for this long loses control.
    public var idle: Double = 60
    /// After this long in control a fresh code is shown again, and the next visitor who claims it takes over.
    public var hold: Double = 300
    /// Wrong codes tolerated within ``failureWindow`` from one client address before that address is locked out
    /// for ``lockout`` (its claims, the right code included, are refused; other addresses are not affected).
    public var addressFailureBudget = 10
    /// Wrong codes tolerated within ``failureWindow`` from every client together before code entry locks for
    /// everyone (shown on the screens): the last resort against many addresses guessing at once, well above what
    /// one client can trigger (its own lockout stops it at ``addressFailureBudget``).
    public var failureBudget = 200
    public var failureWindow: Double = 60
    /// How long an address, or code entry as a whole, stays locked once its budget is spent.
    public var lockout: Double = 60
    /// Client addresses whose wrong codes are remembered at most; the one whose newest wrong code is oldest is
    /// forgotten first (the global budget still counts its codes).
    public var trackedAddresses = 1024
    /// How long after the controller's page closed (its WebSocket ended) control is released, unless the page
    /// connects again first (a reload, or the page's own form post navigating).
    public var closeGrace: Double = 5

    public init() {}
}

/// A code that can be exchanged once for control: a ≥ 128-bit URL-safe token for the QR code's link and a short
/// human code (8 characters of an alphabet without look-alikes) for people who type.
public struct AccessCode: Sendable, Equatable {
    public let token: String
    public let short: String
    public let issuedAt: Double
}

/// The one controller: a session token (a cookie or the WebSocket handshake's) and its times.
public struct ControllerSession: Sendable, Equatable {
    public let id: Int
    public let token: String
    public let claimedAt: Double
    public var lastActivity: Double
    /// Since when no page of this session is connected (nil: one is, or none ever was: a page without
    /// JavaScript, which only idles out).
    public var closedAt: Double?
}

/// Why a code or a session was refused. The raw value is the word clients and logs see.
public enum AccessRefusal: String, Error, Sendable, CaseIterable {
    /// The code matches neither the current token nor the current short code.
    case wrongCode = "wrong_code"
    /// The code was already exchanged for a session (a replay).
    case spentCode = "spent_code"
    /// Too many wrong codes lately (from this client's address, or from everyone): code entry is locked for a while.
    case locked
    /// A newer claim took control from this session.
    case superseded
    /// The session released control, or idled, or never existed.
    case noSession = "no_session"
    /// The session went unused for ``AccessPolicy/idle`` seconds.
    case idle
    /// The session ended by its own Release.
    case released
    /// The session's page closed and did not come back within ``AccessPolicy/closeGrace``.
    case closed
}

/// What the external screens should show for the remote now.
public enum RemoteDisplay: Sendable, Equatable {
    /// A code waiting to be claimed (show the QR code and the short code).
    case code(AccessCode)
    /// Someone is in control: hide the QR code.
    case inControl
    /// Code entry is locked for everyone until the given time (the global last resort; an address locked out
    /// alone changes nothing on screen).
    case locked(until: Double)
}

/// Rotating single-use access codes and the single controller, as a pure value: every method takes the time
/// (monotonic seconds) from the caller, and randomness from an injected source, so the whole lifecycle is tested
/// without waiting. Not thread-safe: its owner serialises calls (``RemoteHub`` holds it in a mutex).
public struct AccessGate {
    public let policy: AccessPolicy
    public private(set) var code: AccessCode?
    public private(set) var session: ControllerSession?
    public private(set) var lockedUntil: Double?
    /// Counters for `status`.
    public private(set) var counters: [String: Int] = [:]
    private var failures: [Double] = []
    /// Wrong codes by client address: their times within the window (at most the address's budget), and until
    /// when the address is locked out. At most ``AccessPolicy/trackedAddresses`` entries.
    private var addresses: [String: AddressRecord] = [:]
    private struct AddressRecord {
        var failures: [Double] = []
        var lockedUntil: Double?
        var lastFailure: Double
    }
    /// Codes already exchanged (token and short code), remembered so a replay is named as one.
    private var spent: [(token: String, short: String)] = []
    /// Sessions that ended, and why, so their holders get a precise reason.
    private var ended: [(token: String, reason: AccessRefusal)] = []
    private var nextSessionID = 1
    /// What happened since the owner last took ``takeActivities()``, in order: for `remote.*` events.
    private var activities: [RemoteActivity] = []
    private let randomBytes: (Int) -> [UInt8]

    /// The letters and digits of short codes: no 0/O, 1/I. 32 symbols, so a random byte maps without bias.
    public static let shortAlphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    public static let shortLength = 8
    /// Remembered spent codes and ended sessions.
    static let memory = 16

    /// - Parameter randomBytes: `n` bytes from a CSPRNG; the default is the system's (`getrandom` on Linux).
    public init(
        policy: AccessPolicy = AccessPolicy(), randomBytes: @escaping (Int) -> [UInt8] = AccessGate.systemRandom
    ) {
        self.policy = policy
        self.randomBytes = randomBytes
    }

    public static func systemRandom(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    // MARK: Time

    /// Applies every limit up to `now`: ends an idle session, rotates an expired code (or issues one when none is
    /// shown and one should be), lifts an expired lockout. Returns the session that ended, with its reason.
    @discardableResult
    public mutating func advance(to now: Double) -> (session: ControllerSession, reason: AccessRefusal)? {
        var endedSession: (ControllerSession, AccessRefusal)?
        if let current = session, now - current.lastActivity >= policy.idle {
            endedSession = (current, .idle)
            end(current, reason: .idle)
            bump("idleEnded")
        } else if let current = session, let closedAt = current.closedAt, now - closedAt >= policy.closeGrace {
            endedSession = (current, .closed)
            end(current, reason: .closed)
            bump("closedEnded")
        }
        if let until = lockedUntil, now >= until { lockedUntil = nil }
        failures.removeAll { now - $0 >= policy.failureWindow }
        if !addresses.isEmpty {
            for (address, var record) in addresses {
                record.failures.removeAll { now - $0 >= policy.failureWindow }
                if let until = record.lockedUntil, now >= until { record.lockedUntil = nil }
                addresses[address] = record.failures.isEmpty && record.lockedUntil == nil ? nil : record
            }
        }
        if let current = code, now - current.issuedAt >= policy.ttl {
            code = nil
            bump("codesExpired")
        }
        if code == nil && wantsCode(at: now) { code = issue(at: now) }
        return endedSession
    }

    /// A code is shown when nobody is in control, or when the controller has held control for ``AccessPolicy/hold``.
    private func wantsCode(at now: Double) -> Bool {
        guard let session else { return true }
        return now - session.claimedAt >= policy.hold
    }

    /// The earliest time at which ``advance(to:)`` would change something: a session idling out or its closed page
    /// releasing it, the hold running out (a code is shown again), the code expiring, the lockout lifting. nil when
    /// nothing is due (the owner's timer need not be armed).
    public var nextDeadline: Double? {
        var times: [Double] = []
        if let session {
            times.append(session.lastActivity + policy.idle)
            if let closedAt = session.closedAt { times.append(closedAt + policy.closeGrace) }
            if code == nil { times.append(session.claimedAt + policy.hold) }
        }
        if let code { times.append(code.issuedAt + policy.ttl) }
        if let lockedUntil { times.append(lockedUntil) }
        return times.min()
    }

    /// The session's page connected (again): a closed page's grace is over.
    public mutating func pageOpened(_ token: String, at now: Double) {
        guard case .success = authorize(token, at: now) else { return }
        session?.closedAt = nil
    }

    /// The session's last page closed: control is released after ``AccessPolicy/closeGrace`` unless it reconnects.
    public mutating func pageClosed(_ token: String, at now: Double) {
        guard case .success = authorize(token, at: now) else { return }
        session?.closedAt = now
    }

    /// The `remote.*` activities since the last call, oldest first.
    public mutating func takeActivities() -> [RemoteActivity] {
        defer { activities = [] }
        return activities
    }

    /// What the screens should show at the time of the last ``advance(to:)``.
    public var display: RemoteDisplay {
        if let lockedUntil { return .locked(until: lockedUntil) }
        if let code { return .code(code) }
        return .inControl
    }

    // MARK: Claims

    /// Whether claims from `address` are refused now (its own lockout; the global one aside).
    public func isLockedOut(_ address: String, at now: Double) -> Bool {
        guard let until = addresses[address]?.lockedUntil else { return false }
        return now < until
    }

    /// How many client addresses' wrong codes are remembered now.
    public var trackedAddressCount: Int { addresses.count }

    /// How many addresses are locked out now.
    public func lockedAddressCount(at now: Double) -> Int {
        addresses.values.reduce(0) { $0 + (($1.lockedUntil ?? -.infinity) > now ? 1 : 0) }
    }

    /// Exchanges `presented` (the token or the short code, case and dashes ignored for the latter) for control.
    /// The code is spent; a previous controller is returned as `superseded` and can never act again.
    /// - Parameter address: the client's address (its IP), whose wrong codes lock it out alone; nil when not
    ///   known (all such claims share one entry).
    public mutating func claim(
        _ presented: String, from address: String? = nil, at now: Double
    ) -> Result<(session: ControllerSession, superseded: ControllerSession?), AccessRefusal> {
        advance(to: now)
        let address = address ?? ""
        if lockedUntil != nil || isLockedOut(address, at: now) {
            bump("refused.locked")
            return .failure(.locked)
        }
        let short = Self.normalizedShort(presented)
        guard let current = code,
            Self.constantTimeEqual(presented, current.token) || Self.constantTimeEqual(short, current.short)
        else {
            if spent.contains(where: {
                Self.constantTimeEqual(presented, $0.token) || Self.constantTimeEqual(short, $0.short)
            }) {
                bump("refused.spent_code")
                return .failure(.spentCode)
            }
            bump("refused.wrong_code")
            failures.append(now)
            recordFailure(of: address, at: now)
            if failures.count >= policy.failureBudget {
                lockedUntil = now + policy.lockout
                failures.removeAll()
                bump("lockouts")
                activities.append(RemoteActivity(kind: .locked, session: 0, detail: "\(Int(policy.lockout.rounded()))"))
            }
            return .failure(.wrongCode)
        }
        remember(&spent, (current.token, current.short))
        code = nil
        let previous = session
        if let previous {
            end(previous, reason: .superseded)
            bump("supersessions")
        }
        let new = ControllerSession(
            id: nextSessionID, token: Self.base64URL(randomBytes(32)), claimedAt: now, lastActivity: now)
        nextSessionID += 1
        session = new
        bump("claims")
        activities.append(RemoteActivity(kind: .claimed, session: UInt32(clamping: new.id)))
        if let previous {
            activities.append(
                RemoteActivity(kind: .superseded, session: UInt32(clamping: previous.id), detail: "\(new.id)"))
        }
        return .success((new, previous))
    }

    /// The current session if `token` is its token; otherwise why not (superseded, idle, released, or unknown).
    public mutating func authorize(_ token: String, at now: Double) -> Result<ControllerSession, AccessRefusal> {
        advance(to: now)
        if let session, Self.constantTimeEqual(token, session.token) { return .success(session) }
        if let past = ended.last(where: { Self.constantTimeEqual(token, $0.token) }) { return .failure(past.reason) }
        return .failure(.noSession)
    }

    /// Records activity (a message) by the session holding `token`, so it does not idle out.
    public mutating func touch(_ token: String, at now: Double) -> Result<ControllerSession, AccessRefusal> {
        let result = authorize(token, at: now)
        if case .success = result { session?.lastActivity = now }
        return result.map { _ in session! }
    }

    /// The controller gives control back; a fresh code is issued at once.
    public mutating func release(_ token: String, at now: Double) -> Bool {
        guard case .success(let current) = authorize(token, at: now) else { return false }
        end(current, reason: .released)
        bump("released")
        advance(to: now)
        return true
    }

    private mutating func end(_ current: ControllerSession, reason: AccessRefusal) {
        remember(&ended, (current.token, reason))
        session = nil
        // A supersession is told with the claim that caused it (above).
        let how: String? =
            switch reason {
            case .released: "release"
            case .idle: "idle"
            case .closed: "closed"
            default: nil
            }
        if let how {
            activities.append(RemoteActivity(kind: .released, session: UInt32(clamping: current.id), detail: how))
        }
    }

    /// A wrong code from `address`: at ``AccessPolicy/addressFailureBudget`` within the window, the address is
    /// locked out. The table stays within ``AccessPolicy/trackedAddresses``: the stalest entry goes first, an
    /// address not locked out before one that is (forgetting a locked-out address would unlock it).
    private mutating func recordFailure(of address: String, at now: Double) {
        var record = addresses[address] ?? AddressRecord(lastFailure: now)
        if addresses[address] == nil, addresses.count >= max(1, policy.trackedAddresses) {
            let unlocked = addresses.filter { ($0.value.lockedUntil ?? 0) <= now }
            let stalest = (unlocked.isEmpty ? addresses : unlocked).min { $0.value.lastFailure < $1.value.lastFailure }
            if let stalest {
                addresses[stalest.key] = nil
                bump("addressesForgotten")
            }
        }
        record.failures.append(now)
        record.lastFailure = now
        if record.failures.count >= policy.addressFailureBudget {
            record.failures.removeAll()
            record.lockedUntil = now + policy.lockout
            bump("addressLockouts")
        }
        addresses[address] = record
    }

    private func remember<T>(_ list: inout [T], _ value: T) {
        list.append(value)
        if list.count > Self.memory { list.removeFirst(list.count - Self.memory) }
    }

    private mutating func issue(at now: Double) -> AccessCode {
        bump("codesIssued")
        let short = String(randomBytes(Self.shortLength).map { Self.shortAlphabet[Int($0 & 31)] })
        return AccessCode(token: Self.base64URL(randomBytes(16)), short: short, issuedAt: now)
    }

    private mutating func bump(_ key: String) { counters[key, default: 0] += 1 }

    // MARK: Helpers

    /// Compares in time that depends on the length of `expected` only, never on where the strings differ.
    public static func constantTimeEqual(_ presented: String, _ expected: String) -> Bool {
        let a = Array(presented.utf8)
        let b = Array(expected.utf8)
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<b.count {
            difference |= (index < a.count ? a[index] : 0) ^ b[index]
        }
        return difference == 0
    }

    /// Upper case without spaces and dashes: "abcd-efgh" is "ABCDEFGH".
    public static func normalizedShort(_ text: String) -> String {
        String(text.uppercased().filter { $0 != "-" && $0 != " " })
    }

    /// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
