// A client for wlroots' virtual pointer protocol (zwlr_virtual_pointer_manager_v1 and zwlr_virtual_pointer_v1, both
// at version 2), written by hand for the tests: a pointer device that the test process creates on a compositor's
// seat, drives and destroys. Interface tables and requests follow the protocol's semantics; nothing is generated or
// copied. The protocol has no events, so there are no listeners.
//
// Symbols carry a `cvp_` prefix so they cannot clash with glue that wayland-scanner might generate for the same
// protocol elsewhere in the same binary.
#pragma once
#include <stdint.h>
#include <wayland-client.h>

// The interface tables. Swift imports an `extern const struct` as a copy, but libwayland identifies interfaces by
// address: use the functions below from Swift.
extern const struct wl_interface cvp_zwlr_virtual_pointer_manager_v1_interface;
extern const struct wl_interface cvp_zwlr_virtual_pointer_v1_interface;

/// `&cvp_zwlr_virtual_pointer_manager_v1_interface`, for `wl_registry_bind` (the global is named
/// "zwlr_virtual_pointer_manager_v1").
const struct wl_interface *cvp_manager_interface(void);
/// `&cvp_zwlr_virtual_pointer_v1_interface`.
const struct wl_interface *cvp_pointer_interface(void);

// zwlr_virtual_pointer_manager_v1 requests.

/// Request 0, `create_virtual_pointer(seat: ?object wl_seat, id: new_id zwlr_virtual_pointer_v1)`. A NULL seat lets
/// the compositor choose.
struct wl_proxy *cvp_manager_create_virtual_pointer(struct wl_proxy *manager, struct wl_proxy *seat);
/// Request 2 (since version 2), `create_virtual_pointer_with_output(seat: ?object wl_seat, output: ?object
/// wl_output, id: new_id zwlr_virtual_pointer_v1)`: absolute motion then maps onto `output` instead of the whole
/// layout. Returns NULL without sending anything when `manager` was bound at version 1.
struct wl_proxy *cvp_manager_create_virtual_pointer_with_output(
    struct wl_proxy *manager, struct wl_proxy *seat, struct wl_proxy *output);
/// Request 1, `destroy` (destructor). The devices created through the manager live on.
void cvp_manager_destroy(struct wl_proxy *manager);

// zwlr_virtual_pointer_v1 requests, in opcode order. `time` is a timestamp in milliseconds; events the device
// produces are grouped by the compositor until `frame`.

/// 0, `motion(time: uint, dx: fixed, dy: fixed)`: relative motion.
void cvp_pointer_motion(struct wl_proxy *pointer, uint32_t time, double dx, double dy);
/// 1, `motion_absolute(time, x, y, x_extent, y_extent: uint)`: the position (x, y) out of an area of
/// x_extent × y_extent mapped onto the output layout (or the device's output).
void cvp_pointer_motion_absolute(
    struct wl_proxy *pointer, uint32_t time, uint32_t x, uint32_t y, uint32_t x_extent, uint32_t y_extent);
/// 2, `button(time, button, state: uint)`: a Linux BTN_* code; state 1 pressed, 0 released (wl_pointer's values).
void cvp_pointer_button(struct wl_proxy *pointer, uint32_t time, uint32_t button, uint32_t state);
/// 3, `axis(time: uint, axis: uint, value: fixed)`: axis 0 vertical, 1 horizontal (wl_pointer.axis).
void cvp_pointer_axis(struct wl_proxy *pointer, uint32_t time, uint32_t axis, double value);
/// 4, `frame()`: ends a group of events that belong together.
void cvp_pointer_frame(struct wl_proxy *pointer);
/// 5, `axis_source(axis_source: uint)`: wl_pointer.axis_source values (0 wheel, 1 finger, 2 continuous, 3 tilt).
void cvp_pointer_axis_source(struct wl_proxy *pointer, uint32_t axis_source);
/// 6, `axis_stop(time: uint, axis: uint)`.
void cvp_pointer_axis_stop(struct wl_proxy *pointer, uint32_t time, uint32_t axis);
/// 7, `axis_discrete(time: uint, axis: uint, value: fixed, discrete: int)`: `value` scroll distance made of
/// `discrete` wheel detents.
void cvp_pointer_axis_discrete(struct wl_proxy *pointer, uint32_t time, uint32_t axis, double value, int32_t discrete);
/// 8, `destroy()` (destructor): the device goes away, and with the seat's last pointer device its capability.
void cvp_pointer_destroy(struct wl_proxy *pointer);
