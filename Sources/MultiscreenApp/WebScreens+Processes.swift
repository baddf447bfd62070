import WebContent

/// Which web process draws which page, from `/proc` (``WebProcesses``): for the pages' memory in `status`.
extension WebScreens {
    /// Gives each page that has drawn but has no known web process one: WebKit says nothing about which process
    /// draws which view, so the web processes not yet given to a page go, oldest first, to those pages in the order
    /// they were opened (each view starts its process when it first loads, and again after a crash).
    func attributeProcesses() {
        for (name, page) in pages where page.process.map({ !WebProcesses.isAlive($0) }) ?? false {
            pages[name]?.process = nil
        }
        let taken = Set(pages.values.compactMap(\.process))
        var free = WebProcesses.children().filter { !taken.contains($0) }
        for (name, _) in pages.filter({ $0.value.process == nil && $0.value.view.framesReceived > 0 })
            .sorted(by: { $0.value.opened < $1.value.opened })
        {
            guard !free.isEmpty else { return }
            pages[name]?.process = free.removeFirst()
        }
    }
}
