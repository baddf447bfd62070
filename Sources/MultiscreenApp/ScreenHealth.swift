/// Whether the compositor shows a screen's frames. A screen whose content waits unshown for longer than
/// ``ScreenSet/staleAfter`` is judged by whether the compositor answers a `wl_display.sync` (``CompositorProbe``):
/// when it answers and shows nothing, its window is recreated once (`recovering`), and if that does not help either
/// it is `failed`; when it does not answer (it is stopped or hung, and answers nobody) the screen is `stale`, since a
/// new window would wait like the old one. Each state lasts until a frame is shown again; a stale screen whose
/// compositor answers again but still shows nothing of it is recreated.
enum ScreenHealth: String, Sendable {
    case ok
    case stale
    case recovering
    case failed
}
