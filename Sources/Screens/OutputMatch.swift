import Outputs

/// Which outputs a config rule applies to: every field given must match (exactly, or as a glob with `*` and `?`).
///
/// Installers copy these values from `multiscreen outputs`, so matching is on what that command prints: the
/// connector name (``OutputInfo/displayName``), the description (with or without sway's trailing " (DP-2)"),
/// the make and the model. Matching is case-sensitive, as the compositor reports the strings.
public struct OutputMatch: Equatable, Sendable {
    public var name: String?
    public var description: String?
    public var make: String?
    public var model: String?

    public init(name: String? = nil, description: String? = nil, make: String? = nil, model: String? = nil) {
        self.name = name
        self.description = description
        self.make = make
        self.model = model
    }

    /// Whether no field is given (a rule like that would match everything by accident; the parser refuses it).
    public var isEmpty: Bool { name == nil && description == nil && make == nil && model == nil }

    public func matches(_ output: OutputInfo) -> Bool {
        if let name, !Glob.matches(name, output.displayName) { return false }
        if let description {
            let full = output.description ?? ""
            let withoutConnector = OutputIdentity(output).description
            if !Glob.matches(description, full) && !Glob.matches(description, withoutConnector) { return false }
        }
        if let make, !Glob.matches(make, output.make) { return false }
        if let model, !Glob.matches(model, output.model) { return false }
        return true
    }
}

/// Shell-style wildcards: `*` any run of characters (also none), `?` exactly one; everything else literal.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern)
        let t = Array(text)
        // Iterative matcher with one backtrack point (the last `*`): linear in practice, no recursion.
        var pi = 0
        var ti = 0
        var star: Int?
        var starText = 0
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                starText = ti
                pi += 1
            } else if let s = star {
                pi = s + 1
                starText += 1
                ti = starText
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
