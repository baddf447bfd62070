/// Whether the compositor shows a screen's frames. A screen whose content waits unshown for longer than
/// ``ScreenSet/staleAfter`` is judged: when the compositor has taken its last frame and shows nothing, its window is
/// recreated once (`recovering`), and if that does not help either it is `failed`; when the compositor has not even
/// taken the last frame (it is stopped or hung, and answers nobody) the screen is `stale`, since a new window would
/// wait like the old one. Each state lasts until a frame is shown again.
enum ScreenHealth: String, Sendable {
    case ok
    case stale
    case recovering
    case failed
}
