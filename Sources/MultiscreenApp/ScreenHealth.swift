/// Whether the compositor shows a screen's frames. A screen whose content waits unshown for longer than
/// ``ScreenSet/staleAfter`` is `stale`: its window is recreated once (`recovering`); if that does not help either it
/// is `failed` until a frame is shown again.
enum ScreenHealth: String, Sendable {
    case ok
    case recovering
    case failed
}
