// Interface tables and request marshalling for zwlr_virtual_pointer_manager_v1 / zwlr_virtual_pointer_v1, version 2.
// See include/CVirtualPointer.h.
//
// A `struct wl_message` is a request's name, its signature and the interface of each argument. Signature letters:
// u uint, i int, f fixed, o object, n new_id, with `?` before a nullable object; a leading digit is the version the
// message appeared in. `types` has one entry per argument: the interface for object and new_id arguments, NULL for
// the others.
#include "CVirtualPointer.h"

#include <stddef.h>

// Arguments that carry no interface (and requests without arguments) share this table; the longest such request,
// motion_absolute, has five arguments.
static const struct wl_interface *no_interfaces[5] = {NULL, NULL, NULL, NULL, NULL};

static const struct wl_interface *create_types[] = {
    &wl_seat_interface,
    &cvp_zwlr_virtual_pointer_v1_interface,
};

static const struct wl_interface *create_with_output_types[] = {
    &wl_seat_interface,
    &wl_output_interface,
    &cvp_zwlr_virtual_pointer_v1_interface,
};

enum {
    manager_create_virtual_pointer = 0,
    manager_destroy = 1,
    manager_create_virtual_pointer_with_output = 2,
};

static const struct wl_message manager_requests[] = {
    {"create_virtual_pointer", "?on", create_types},
    {"destroy", "", no_interfaces},
    {"create_virtual_pointer_with_output", "2?o?on", create_with_output_types},
};

const struct wl_interface cvp_zwlr_virtual_pointer_manager_v1_interface = {
    "zwlr_virtual_pointer_manager_v1", 2, 3, manager_requests, 0, NULL,
};

enum {
    pointer_motion = 0,
    pointer_motion_absolute = 1,
    pointer_button = 2,
    pointer_axis = 3,
    pointer_frame = 4,
    pointer_axis_source = 5,
    pointer_axis_stop = 6,
    pointer_axis_discrete = 7,
    pointer_destroy = 8,
};

static const struct wl_message pointer_requests[] = {
    {"motion", "uff", no_interfaces},
    {"motion_absolute", "uuuuu", no_interfaces},
    {"button", "uuu", no_interfaces},
    {"axis", "uuf", no_interfaces},
    {"frame", "", no_interfaces},
    {"axis_source", "u", no_interfaces},
    {"axis_stop", "uu", no_interfaces},
    {"axis_discrete", "uufi", no_interfaces},
    {"destroy", "", no_interfaces},
};

const struct wl_interface cvp_zwlr_virtual_pointer_v1_interface = {
    "zwlr_virtual_pointer_v1", 2, 9, pointer_requests, 0, NULL,
};

const struct wl_interface *cvp_manager_interface(void) { return &cvp_zwlr_virtual_pointer_manager_v1_interface; }
const struct wl_interface *cvp_pointer_interface(void) { return &cvp_zwlr_virtual_pointer_v1_interface; }

// Requests that create an object pass the new proxy's interface and the version it inherits (the manager's); the
// new_id argument itself is a NULL placeholder that libwayland fills in. Other requests pass no interface.

struct wl_proxy *cvp_manager_create_virtual_pointer(struct wl_proxy *manager, struct wl_proxy *seat) {
    return wl_proxy_marshal_flags(
        manager, manager_create_virtual_pointer, &cvp_zwlr_virtual_pointer_v1_interface,
        wl_proxy_get_version(manager), 0, seat, NULL);
}

struct wl_proxy *cvp_manager_create_virtual_pointer_with_output(
    struct wl_proxy *manager, struct wl_proxy *seat, struct wl_proxy *output) {
    if (wl_proxy_get_version(manager) < 2) return NULL;
    return wl_proxy_marshal_flags(
        manager, manager_create_virtual_pointer_with_output, &cvp_zwlr_virtual_pointer_v1_interface,
        wl_proxy_get_version(manager), 0, seat, output, NULL);
}

void cvp_manager_destroy(struct wl_proxy *manager) {
    wl_proxy_marshal_flags(manager, manager_destroy, NULL, wl_proxy_get_version(manager), WL_MARSHAL_FLAG_DESTROY);
}

void cvp_pointer_motion(struct wl_proxy *pointer, uint32_t time, double dx, double dy) {
    wl_proxy_marshal_flags(
        pointer, pointer_motion, NULL, wl_proxy_get_version(pointer), 0, time, wl_fixed_from_double(dx),
        wl_fixed_from_double(dy));
}

void cvp_pointer_motion_absolute(
    struct wl_proxy *pointer, uint32_t time, uint32_t x, uint32_t y, uint32_t x_extent, uint32_t y_extent) {
    wl_proxy_marshal_flags(
        pointer, pointer_motion_absolute, NULL, wl_proxy_get_version(pointer), 0, time, x, y, x_extent, y_extent);
}

void cvp_pointer_button(struct wl_proxy *pointer, uint32_t time, uint32_t button, uint32_t state) {
    wl_proxy_marshal_flags(pointer, pointer_button, NULL, wl_proxy_get_version(pointer), 0, time, button, state);
}

void cvp_pointer_axis(struct wl_proxy *pointer, uint32_t time, uint32_t axis, double value) {
    wl_proxy_marshal_flags(
        pointer, pointer_axis, NULL, wl_proxy_get_version(pointer), 0, time, axis, wl_fixed_from_double(value));
}

void cvp_pointer_frame(struct wl_proxy *pointer) {
    wl_proxy_marshal_flags(pointer, pointer_frame, NULL, wl_proxy_get_version(pointer), 0);
}

void cvp_pointer_axis_source(struct wl_proxy *pointer, uint32_t axis_source) {
    wl_proxy_marshal_flags(pointer, pointer_axis_source, NULL, wl_proxy_get_version(pointer), 0, axis_source);
}

void cvp_pointer_axis_stop(struct wl_proxy *pointer, uint32_t time, uint32_t axis) {
    wl_proxy_marshal_flags(pointer, pointer_axis_stop, NULL, wl_proxy_get_version(pointer), 0, time, axis);
}

void cvp_pointer_axis_discrete(struct wl_proxy *pointer, uint32_t time, uint32_t axis, double value, int32_t discrete) {
    wl_proxy_marshal_flags(
        pointer, pointer_axis_discrete, NULL, wl_proxy_get_version(pointer), 0, time, axis,
        wl_fixed_from_double(value), discrete);
}

void cvp_pointer_destroy(struct wl_proxy *pointer) {
    wl_proxy_marshal_flags(pointer, pointer_destroy, NULL, wl_proxy_get_version(pointer), WL_MARSHAL_FLAG_DESTROY);
}
