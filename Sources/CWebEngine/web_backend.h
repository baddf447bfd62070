#pragma once
// wpebackend-fdo: the view backend whose frames the embedder receives (here as wl_shm buffers, see
// Sources/WebContent/WebEngine.swift for why) and libwpe's loader. The few wayland-server calls that read an
// exported shm buffer are wrapped here, so Swift never sees wayland-server's types next to wayland-client's.
#include <wpe/fdo.h>
#include <wpe/unstable/fdo-shm.h>
#include <wayland-server-core.h>

/// The pixels of an exported shm buffer, valid between multiscreen_shm_begin and multiscreen_shm_end.
typedef struct {
    const void *data;
    int32_t width;
    int32_t height;
    int32_t stride;
    uint32_t format;  // WL_SHM_FORMAT_ARGB8888 (0) or XRGB8888 (1): B, G, R, A bytes in memory
} multiscreen_shm_pixels;

static inline bool multiscreen_shm_begin(struct wpe_fdo_shm_exported_buffer *buffer, multiscreen_shm_pixels *out) {
    struct wl_shm_buffer *shm = wpe_fdo_shm_exported_buffer_get_shm_buffer(buffer);
    if (!shm) return false;
    wl_shm_buffer_begin_access(shm);
    out->data = wl_shm_buffer_get_data(shm);
    out->width = wl_shm_buffer_get_width(shm);
    out->height = wl_shm_buffer_get_height(shm);
    out->stride = wl_shm_buffer_get_stride(shm);
    out->format = wl_shm_buffer_get_format(shm);
    return true;
}

static inline void multiscreen_shm_end(struct wpe_fdo_shm_exported_buffer *buffer) {
    struct wl_shm_buffer *shm = wpe_fdo_shm_exported_buffer_get_shm_buffer(buffer);
    if (shm) wl_shm_buffer_end_access(shm);
}
