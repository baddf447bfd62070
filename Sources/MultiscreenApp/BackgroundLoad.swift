import Foundation

/// Builds a value on a short-lived thread while the display thread does other work, then hands it over once.
///
/// Used for start-up work that does not touch Wayland or EGL: fontconfig's first `FcInit` with CJK fonts
/// installed costs ~50 ms, about as long as connecting, binding and initialising EGL, so doing both at once
/// brings the first frame forward. The value is created on the loader thread and only used by the display
/// thread after ``value()`` returned (the semaphore orders the two), hence `@unchecked Sendable`.
final class BackgroundLoad<Value>: @unchecked Sendable {
    private var result: Result<Value, Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ name: String, _ make: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            result = Result { try make() }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits for the value (at most once; later calls return the same result).
    func value() throws -> Value {
        if result == nil { done.wait() }
        return try result!.get()
    }
}
