/// Outputs keyed by registry name, with changes applied atomically at `done`.
///
/// An output becomes visible (``OutputChange/added(_:)``) only once everything about it is known: its first
/// `wl_output.done`, and, when the compositor offers `xdg-output`, the `xdg_output` description that follows.
/// This is what lets weston 10 (wl_output v3, no `name` event) show real names: the name comes from
/// `xdg_output.name`, which arrives after the first `wl_output.done`.
public struct OutputTracker: Sendable {
    private struct Entry: Sendable {
        var pending: OutputInfo
        var current: OutputInfo?
        var waitsForXDGOutput: Bool
        var xdgEventsSeen = false
        var xdgComplete = false
    }

    private var entries: [UInt32: Entry] = [:]

    /// Every output that is complete, ordered by connector name (natural order: HEADLESS-2 before HEADLESS-10).
    /// Sorted when an output comes, changes or goes, not when read: every render pass reads it once per screen, and
    /// with sixteen outputs sorting at each read took a seventh of the display thread's time.
    public private(set) var outputs: [OutputInfo] = []

    public init() {}

    public var count: Int { outputs.count }

    public subscript(registryName: UInt32) -> OutputInfo? { entries[registryName]?.current }

    /// Starts tracking a newly bound `wl_output`.
    /// - Parameter waitsForXDGOutput: whether an `xdg_output` will describe it too (hold it back until it has).
    public mutating func begin(registryName: UInt32, waitsForXDGOutput: Bool) {
        let replaced = entries.updateValue(
            Entry(pending: OutputInfo(registryName: registryName), waitsForXDGOutput: waitsForXDGOutput),
            forKey: registryName)
        if replaced?.current != nil { sortOutputs() }
    }

    /// Marks an already bound output as getting an `xdg_output` later (the manager global appeared after it).
    public mutating func expectXDGOutput(registryName: UInt32) {
        entries[registryName]?.waitsForXDGOutput = true
        entries[registryName]?.xdgEventsSeen = false
        entries[registryName]?.xdgComplete = false
    }

    /// Applies one event; returns a change when a `done` made one visible.
    public mutating func handle(_ event: OutputEvent, registryName: UInt32) -> OutputChange? {
        guard var entry = entries[registryName] else { return nil }
        let change = Self.apply(event, to: &entry)
        entries[registryName] = entry
        if change != nil { sortOutputs() }
        return change
    }

    /// Forgets an output whose global was removed.
    public mutating func remove(registryName: UInt32) -> OutputChange? {
        guard let entry = entries.removeValue(forKey: registryName) else { return nil }
        guard let current = entry.current else { return nil }
        sortOutputs()
        return .removed(current)
    }

    private mutating func sortOutputs() {
        outputs = entries.values.compactMap(\.current).sorted { $0.displayName.naturalOrder($1.displayName) }
    }

    /// Applies one event to `entry`; returns a change when a `done` made one visible.
    private static func apply(_ event: OutputEvent, to entry: inout Entry) -> OutputChange? {
        switch event {
        case .geometry(let x, let y, let pw, let ph, let make, let model, let transform):
            // wl_output.geometry x/y are deprecated in favour of xdg_output's logical position, but they are
            // what a compositor without xdg-output gives us.
            if !entry.waitsForXDGOutput {
                entry.pending.logicalX = x
                entry.pending.logicalY = y
            }
            entry.pending.physicalWidthMM = pw
            entry.pending.physicalHeightMM = ph
            entry.pending.make = make
            entry.pending.model = model
            entry.pending.transform = transform
        case .mode(let w, let h, let refresh):
            entry.pending.modeWidth = w
            entry.pending.modeHeight = h
            entry.pending.refreshMilliHertz = refresh
        case .scale(let s):
            entry.pending.scale = max(s, 1)
        case .name(let n):
            entry.pending.name = n
        case .description(let d):
            entry.pending.description = d
        case .xdgName(let n):
            entry.pending.name = n
            entry.xdgEventsSeen = true
        case .xdgDescription(let d):
            entry.pending.description = d
            entry.xdgEventsSeen = true
        case .logicalPosition(let x, let y):
            entry.pending.logicalX = x
            entry.pending.logicalY = y
            entry.xdgEventsSeen = true
        case .logicalSize(let w, let h):
            entry.pending.logicalWidth = w
            entry.pending.logicalHeight = h
            entry.xdgEventsSeen = true
        case .xdgDone:
            entry.xdgComplete = true
            return publish(&entry)
        case .done:
            // xdg-output v3: "the xdg_output.done event is deprecated … compositors send wl_output.done instead".
            if entry.xdgEventsSeen { entry.xdgComplete = true }
            return publish(&entry)
        }
        return nil
    }

    private static func publish(_ entry: inout Entry) -> OutputChange? {
        if entry.waitsForXDGOutput && !entry.xdgComplete { return nil }
        let new = entry.pending
        defer { entry.current = new }
        guard let old = entry.current else { return .added(new) }
        return old == new ? nil : .changed(old: old, new: new)
    }
}

extension String {
    /// Orders "HEADLESS-2" before "HEADLESS-10": digit runs compare by value.
    public func naturalOrder(_ other: String) -> Bool {
        var a = Substring(self)
        var b = Substring(other)
        while let ca = a.first, let cb = b.first {
            if ca.isNumber && cb.isNumber {
                let da = a.prefix(while: \.isNumber)
                let db = b.prefix(while: \.isNumber)
                if da.count != db.count { return da.count < db.count }
                if da != db { return da < db }
                a = a.dropFirst(da.count)
                b = b.dropFirst(db.count)
            } else {
                if ca != cb { return ca < cb }
                a = a.dropFirst()
                b = b.dropFirst()
            }
        }
        return a.isEmpty && !b.isEmpty
    }
}
