import Wayland

/// The one seat a kiosk has (a second would fight over the same controller UI), bound from the registry, with its
/// key repeater's timer on the display thread's loop for exactly as long as the seat lives: watched when the seat is
/// bound, no longer once it goes (foot's `fdm_add`/`fdm_del`, by the owner of the seat).
final class InputSeat {
    let seat: Seat
    private unowned let loop: EventLoop

    init?(registry: Registry, name: UInt32, loop: EventLoop) {
        guard let seat = Seat(registry: registry, name: name) else { return nil }
        self.seat = seat
        self.loop = loop
        loop.watch(seat.keyRepeater.fileDescriptor) { [unowned seat] in seat.keyRepeater.handleTimer() }
    }

    var registryName: UInt32 { seat.registryName }

    /// Decides again whether the pointer shows a cursor where it is (what the screens show changed).
    func refreshCursor() { seat.refreshCursor() }

    /// The seat's devices and the seat go; its key repeater is no longer watched.
    func destroy() {
        loop.unwatch(seat.keyRepeater.fileDescriptor)
        seat.destroy()
    }
}
