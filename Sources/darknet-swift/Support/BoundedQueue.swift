import Foundation

/// A first-in first-out queue between two threads holding at most `capacity` items: `push`
/// waits while it is full (back-pressure), `pop` waits while it is empty and returns nil
/// once the queue is closed and drained.
final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func push(_ item: Element) {
        condition.lock()
        while items.count >= capacity && !closed { condition.wait() }
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// Never waits: first removes the waiting items that `isReplaced` says the new item makes
    /// stale (`stream --drop`: older frames, never error items), then appends it. Returns how
    /// many were removed.
    @discardableResult
    func pushReplacing(_ item: Element, where isReplaced: (Element) -> Bool) -> Int {
        condition.lock()
        let before = items.count
        items.removeAll(where: isReplaced)
        let removed = before - items.count
        items.append(item)
        condition.broadcast()
        condition.unlock()
        return removed
    }

    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        if items.isEmpty { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Never waits: the first item, or nil when none is waiting.
    func tryPop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        if items.isEmpty { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Runs `body` on a new thread; `join` waits for it to finish.
final class Worker: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in
            body()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    func join() { done.wait() }
}
