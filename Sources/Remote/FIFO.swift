/// A first-in first-out queue with O(1) amortised push and pop and access by position from the front, for the
/// reply bookkeeping (no dependency on swift-collections for two small queues).
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }

    mutating func push(_ element: Element) { storage.append(element) }

    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func popFirst() -> Element? {
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
    subscript(offset: Int) -> Element {
        get { storage[head + offset] }
        set { storage[head + offset] = newValue }
    }
}
