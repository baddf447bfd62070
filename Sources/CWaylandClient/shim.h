// Wayland client core protocol. Generated protocol glue lives in CWaylandProtocols.
#pragma once
#include <wayland-client.h>

// `extern const struct wl_interface x_interface` imports into Swift as a copy;
// libwayland compares interfaces by address, so take the address here.
static inline const struct wl_interface *ms_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *ms_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *ms_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *ms_wl_shm_interface(void) { return &wl_shm_interface; }

// wl_display_get_protocol_error with plain out-parameters.
static inline uint32_t ms_protocol_error(struct wl_display *display, const char **interface_name, uint32_t *object_id) {
    const struct wl_interface *interface = NULL;
    uint32_t code = wl_display_get_protocol_error(display, &interface, object_id);
    *interface_name = interface ? interface->name : "unknown";
    return code;
}
static inline const struct wl_interface *ms_wl_subcompositor_interface(void) { return &wl_subcompositor_interface; }
