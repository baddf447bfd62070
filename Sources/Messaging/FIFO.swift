/// A first-in first-out queue with O(1) amortised push and pop and access by position from the front: what each
/// request in a ring belongs to (``RequestIntake``), a connection's held requests.
public struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    public init() {}

    public var isEmpty: Bool { head == storage.count }
    public var count: Int { storage.count - head }

    public mutating func push(_ element: Element) { storage.append(element) }

    public var first: Element? { isEmpty ? nil : storage[head] }

    public mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// The element `offset` places behind the front.
    public subscript(offset: Int) -> Element {
        get { storage[head + offset] }
        set { storage[head + offset] = newValue }
    }
}

extension FIFO: Sendable where Element: Sendable {}
