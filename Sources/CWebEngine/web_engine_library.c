// The functions Multiscreen calls in WPE WebKit and its view backend, defined here and forwarded to the libraries
// that multiscreen_web_engine_open opens (web_engine_library.h says why). Each definition below has the name and
// parameters of the library's declaration, which this file includes: a definition that differs from the header does
// not compile. The linker names any function called elsewhere and missing from the list.
#include "CWebEngine.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/// The libraries, by the ABI version (soname) the headers describe. WebKit's handle also reaches libwpe, and the
/// backend's reaches wayland-server: a lookup through a handle searches the library's own dependencies too.
enum library { webkit, backend, library_count };
static const char *const library_names[library_count] = {"libWPEWebKit-1.1.so.0", "libWPEBackend-fdo-1.0.so.1"};

// F(library, return type, name, parameters, arguments) for functions that return a value, V(...) for those that
// return nothing (C does not allow `return` of a void call).
#define WEB_ENGINE_FUNCTIONS(F, V)                                                                                   \
    F(webkit, gboolean, jsc_value_is_string, (JSCValue * value), (value))                                            \
    F(webkit, char *, jsc_value_to_json, (JSCValue * value, guint indent), (value, indent))                          \
    F(webkit, char *, jsc_value_to_string, (JSCValue * value), (value))                                              \
    F(webkit, guint, webkit_get_major_version, (void), ())                                                           \
    F(webkit, guint, webkit_get_minor_version, (void), ())                                                           \
    F(webkit, guint, webkit_get_micro_version, (void), ())                                                           \
    F(webkit, JSCValue *, webkit_javascript_result_get_js_value, (WebKitJavascriptResult * result), (result))        \
    V(webkit, webkit_javascript_result_unref, (WebKitJavascriptResult * result), (result))                           \
    F(webkit, WebKitMemoryPressureSettings *, webkit_memory_pressure_settings_new, (void), ())                       \
    V(webkit, webkit_memory_pressure_settings_free, (WebKitMemoryPressureSettings * settings), (settings))           \
    V(webkit, webkit_memory_pressure_settings_set_kill_threshold,                                                    \
      (WebKitMemoryPressureSettings * settings, gdouble value), (settings, value))                                   \
    V(webkit, webkit_memory_pressure_settings_set_memory_limit,                                                      \
      (WebKitMemoryPressureSettings * settings, guint limit), (settings, limit))                                     \
    V(webkit, webkit_settings_set_allow_file_access_from_file_urls, (WebKitSettings * settings, gboolean allowed),   \
      (settings, allowed))                                                                                           \
    F(webkit, WebKitUserContentManager *, webkit_user_content_manager_new, (void), ())                               \
    V(webkit, webkit_user_content_manager_add_script, (WebKitUserContentManager * manager, WebKitUserScript * script), \
      (manager, script))                                                                                             \
    F(webkit, gboolean, webkit_user_content_manager_register_script_message_handler,                                 \
      (WebKitUserContentManager * manager, const gchar *name), (manager, name))                                      \
    V(webkit, webkit_user_content_manager_unregister_script_message_handler,                                         \
      (WebKitUserContentManager * manager, const gchar *name), (manager, name))                                      \
    F(webkit, WebKitUserScript *, webkit_user_script_new,                                                            \
      (const gchar *source, WebKitUserContentInjectedFrames frames, WebKitUserScriptInjectionTime time,              \
       const gchar *const *allow_list, const gchar *const *block_list),                                              \
      (source, frames, time, allow_list, block_list))                                                                \
    V(webkit, webkit_user_script_unref, (WebKitUserScript * script), (script))                                       \
    F(webkit, GType, webkit_web_context_get_type, (void), ())                                                        \
    F(webkit, WebKitWebViewBackend *, webkit_web_view_backend_new,                                                   \
      (struct wpe_view_backend * backend, GDestroyNotify notify, gpointer data), (backend, notify, data))            \
    F(webkit, gboolean, webkit_web_view_get_is_web_process_responsive, (WebKitWebView * view), (view))               \
    F(webkit, WebKitSettings *, webkit_web_view_get_settings, (WebKitWebView * view), (view))                        \
    F(webkit, GType, webkit_web_view_get_type, (void), ())                                                           \
    F(webkit, const gchar *, webkit_web_view_get_uri, (WebKitWebView * view), (view))                                \
    V(webkit, webkit_web_view_load_uri, (WebKitWebView * view, const gchar *uri), (view, uri))                       \
    F(webkit, WebKitWebView *, webkit_web_view_new_with_user_content_manager,                                        \
      (WebKitWebViewBackend * backend, WebKitUserContentManager * manager), (backend, manager))                      \
    V(webkit, webkit_web_view_run_javascript,                                                                        \
      (WebKitWebView * view, const gchar *script, GCancellable *cancellable, GAsyncReadyCallback callback,           \
       gpointer data),                                                                                               \
      (view, script, cancellable, callback, data))                                                                   \
    F(webkit, WebKitJavascriptResult *, webkit_web_view_run_javascript_finish,                                       \
      (WebKitWebView * view, GAsyncResult * result, GError * *error), (view, result, error))                         \
    V(webkit, webkit_web_view_terminate_web_process, (WebKitWebView * view), (view))                                 \
    F(webkit, bool, wpe_loader_init, (const char *name), (name))                                                     \
    F(webkit, uint32_t, wpe_unicode_to_key_code, (uint32_t code), (code))                                            \
    V(webkit, wpe_view_backend_add_activity_state, (struct wpe_view_backend * backend, uint32_t state),              \
      (backend, state))                                                                                              \
    V(webkit, wpe_view_backend_remove_activity_state, (struct wpe_view_backend * backend, uint32_t state),           \
      (backend, state))                                                                                              \
    V(webkit, wpe_view_backend_dispatch_axis_event,                                                                  \
      (struct wpe_view_backend * backend, struct wpe_input_axis_event * event), (backend, event))                    \
    V(webkit, wpe_view_backend_dispatch_keyboard_event,                                                              \
      (struct wpe_view_backend * backend, struct wpe_input_keyboard_event * event), (backend, event))                \
    V(webkit, wpe_view_backend_dispatch_pointer_event,                                                               \
      (struct wpe_view_backend * backend, struct wpe_input_pointer_event * event), (backend, event))                 \
    V(webkit, wpe_view_backend_dispatch_touch_event,                                                                 \
      (struct wpe_view_backend * backend, struct wpe_input_touch_event * event), (backend, event))                   \
    V(webkit, wpe_view_backend_dispatch_set_device_scale_factor, (struct wpe_view_backend * backend, float scale),   \
      (backend, scale))                                                                                              \
    V(webkit, wpe_view_backend_dispatch_set_size, (struct wpe_view_backend * backend, uint32_t width, uint32_t height), \
      (backend, width, height))                                                                                      \
    F(backend, bool, wpe_fdo_initialize_shm, (void), ())                                                             \
    F(backend, struct wl_shm_buffer *, wpe_fdo_shm_exported_buffer_get_shm_buffer,                                   \
      (struct wpe_fdo_shm_exported_buffer * buffer), (buffer))                                                       \
    F(backend, struct wpe_view_backend_exportable_fdo *, wpe_view_backend_exportable_fdo_create,                     \
      (const struct wpe_view_backend_exportable_fdo_client *client, void *data, uint32_t width, uint32_t height),   \
      (client, data, width, height))                                                                                 \
    V(backend, wpe_view_backend_exportable_fdo_destroy, (struct wpe_view_backend_exportable_fdo * exportable),       \
      (exportable))                                                                                                  \
    V(backend, wpe_view_backend_exportable_fdo_dispatch_frame_complete,                                              \
      (struct wpe_view_backend_exportable_fdo * exportable), (exportable))                                           \
    V(backend, wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer,                                 \
      (struct wpe_view_backend_exportable_fdo * exportable, struct wpe_fdo_shm_exported_buffer * buffer),            \
      (exportable, buffer))                                                                                          \
    F(backend, struct wpe_view_backend *, wpe_view_backend_exportable_fdo_get_view_backend,                          \
      (struct wpe_view_backend_exportable_fdo * exportable), (exportable))                                           \
    V(backend, wl_shm_buffer_begin_access, (struct wl_shm_buffer * buffer), (buffer))                                \
    V(backend, wl_shm_buffer_end_access, (struct wl_shm_buffer * buffer), (buffer))                                  \
    F(backend, void *, wl_shm_buffer_get_data, (struct wl_shm_buffer * buffer), (buffer))                            \
    F(backend, uint32_t, wl_shm_buffer_get_format, (struct wl_shm_buffer * buffer), (buffer))                        \
    F(backend, int32_t, wl_shm_buffer_get_height, (struct wl_shm_buffer * buffer), (buffer))                         \
    F(backend, int32_t, wl_shm_buffer_get_stride, (struct wl_shm_buffer * buffer), (buffer))                         \
    F(backend, int32_t, wl_shm_buffer_get_width, (struct wl_shm_buffer * buffer), (buffer))

// The library's function behind each name, set once by multiscreen_web_engine_open.
#define POINTER(library, type, name, parameters, arguments) static __typeof__(name) *library_##name;
#define VOID_POINTER(library, name, parameters, arguments) static __typeof__(name) *library_##name;
WEB_ENGINE_FUNCTIONS(POINTER, VOID_POINTER)

/// Ends the process: a web engine function called before the engine was opened is a bug in the caller.
static void called_before_open(const char *name) {
    fprintf(stderr, "multiscreen: %s called before the web engine was opened\n", name);
    abort();
}

#define FORWARD(library, type, name, parameters, arguments)                                                          \
    type name parameters {                                                                                           \
        if (!library_##name) called_before_open(#name);                                                              \
        return library_##name arguments;                                                                             \
    }
#define VOID_FORWARD(library, name, parameters, arguments)                                                           \
    void name parameters {                                                                                           \
        if (!library_##name) called_before_open(#name);                                                              \
        library_##name arguments;                                                                                    \
    }
WEB_ENGINE_FUNCTIONS(FORWARD, VOID_FORWARD)

/// Why the last open failed: dlerror's text is only valid until the next dl call, so it is copied here.
static char failure[512];

/// The function `name` of the library behind `handle`, or NULL with `failure` set.
static void *look_up(void *handle, const char *name) {
    void *function = dlsym(handle, name);
    if (!function) snprintf(failure, sizeof failure, "%s", dlerror());
    return function;
}

const char *multiscreen_web_engine_open(void) {
    static bool opened;
    if (opened) return NULL;
    void *handles[library_count];
    for (int library = 0; library < library_count; library++) {
        // RTLD_NOW: a library whose own dependencies cannot be bound fails here, with its name, not in a call later.
        handles[library] = dlopen(library_names[library], RTLD_NOW | RTLD_LOCAL);
        if (!handles[library]) {
            snprintf(failure, sizeof failure, "%s", dlerror());
            return failure;
        }
    }
#define LOOK_UP(library, type, name, parameters, arguments)                                                          \
    if (!(library_##name = look_up(handles[library], #name))) return failure;
#define VOID_LOOK_UP(library, name, parameters, arguments)                                                           \
    if (!(library_##name = look_up(handles[library], #name))) return failure;
    WEB_ENGINE_FUNCTIONS(LOOK_UP, VOID_LOOK_UP)
    opened = true;
    return NULL;
}
