#pragma once
// Every function Multiscreen calls in WPE WebKit, libwpe, wpebackend-fdo and wayland-server, and the library each is
// looked up in (web_engine_library.h says why they are not linked). Each is declared again here under a symbol of
// our own (`multiscreen_` + its name): Swift and C call it by its usual name, the definition in
// web_engine_library.c forwards it, and no library can bind its own calls to our definition instead of its own (an
// executable linked with -export-dynamic, as with the static Swift runtime, offers its symbols to every library
// loaded after it). A declaration here that differs from the library's header does not compile.
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wpe/fdo.h>
#include <wpe/unstable/fdo-shm.h>
// WebKit's g_autoptr cleanups are inline functions that call three of the functions renamed below, which must not be
// used before they are renamed; nothing here uses g_autoptr, so WebKit's header is read without them.
#define WebKitAutocleanups_h
#include <wpe/webkit.h>
#include <wpe/wpe.h>

/// The libraries, in the order they are opened. WebKit's also reaches libwpe, and the backend's wayland-server: a
/// lookup through a handle searches the library's own dependencies too.
enum multiscreen_web_library { webkit_library, backend_library, web_library_count };

// F(library, return type, name, parameters, arguments) for functions that return a value, V(...) for those that
// return nothing (C does not allow `return` of a void call).
#define WEB_ENGINE_FUNCTIONS(F, V)                                                                                     \
    F(webkit_library, gboolean, jsc_value_is_string, (JSCValue * value), (value))                                      \
    F(webkit_library, char *, jsc_value_to_json, (JSCValue * value, guint indent), (value, indent))                    \
    F(webkit_library, char *, jsc_value_to_string, (JSCValue * value), (value))                                        \
    F(webkit_library, guint, webkit_get_major_version, (void), ())                                                     \
    F(webkit_library, guint, webkit_get_minor_version, (void), ())                                                     \
    F(webkit_library, guint, webkit_get_micro_version, (void), ())                                                     \
    F(webkit_library, JSCValue *, webkit_javascript_result_get_js_value, (WebKitJavascriptResult * result), (result))  \
    V(webkit_library, webkit_javascript_result_unref, (WebKitJavascriptResult * result), (result))                     \
    F(webkit_library, WebKitMemoryPressureSettings *, webkit_memory_pressure_settings_new, (void), ())                 \
    V(webkit_library, webkit_memory_pressure_settings_free, (WebKitMemoryPressureSettings * settings), (settings))     \
    V(webkit_library, webkit_memory_pressure_settings_set_kill_threshold,                                              \
      (WebKitMemoryPressureSettings * settings, gdouble value), (settings, value))                                     \
    V(webkit_library, webkit_memory_pressure_settings_set_memory_limit,                                                \
      (WebKitMemoryPressureSettings * settings, guint limit), (settings, limit))                                       \
    V(webkit_library, webkit_settings_set_allow_file_access_from_file_urls,                                            \
      (WebKitSettings * settings, gboolean allowed), (settings, allowed))                                              \
    F(webkit_library, WebKitUserContentManager *, webkit_user_content_manager_new, (void), ())                         \
    V(webkit_library, webkit_user_content_manager_add_script,                                                          \
      (WebKitUserContentManager * manager, WebKitUserScript * script), (manager, script))                              \
    F(webkit_library, gboolean, webkit_user_content_manager_register_script_message_handler,                           \
      (WebKitUserContentManager * manager, const gchar *name), (manager, name))                                        \
    V(webkit_library, webkit_user_content_manager_unregister_script_message_handler,                                   \
      (WebKitUserContentManager * manager, const gchar *name), (manager, name))                                        \
    F(webkit_library, WebKitUserScript *, webkit_user_script_new,                                                      \
      (const gchar *source, WebKitUserContentInjectedFrames frames, WebKitUserScriptInjectionTime time,                \
       const gchar *const *allow_list, const gchar *const *block_list),                                                \
      (source, frames, time, allow_list, block_list))                                                                  \
    V(webkit_library, webkit_user_script_unref, (WebKitUserScript * script), (script))                                 \
    F(webkit_library, GType, webkit_web_context_get_type, (void), ())                                                  \
    F(webkit_library, WebKitWebViewBackend *, webkit_web_view_backend_new,                                             \
      (struct wpe_view_backend * backend, GDestroyNotify notify, gpointer data), (backend, notify, data))              \
    F(webkit_library, gboolean, webkit_web_view_get_is_web_process_responsive, (WebKitWebView * view), (view))         \
    F(webkit_library, WebKitSettings *, webkit_web_view_get_settings, (WebKitWebView * view), (view))                  \
    F(webkit_library, GType, webkit_web_view_get_type, (void), ())                                                     \
    F(webkit_library, const gchar *, webkit_web_view_get_uri, (WebKitWebView * view), (view))                          \
    V(webkit_library, webkit_web_view_load_uri, (WebKitWebView * view, const gchar *uri), (view, uri))                 \
    F(webkit_library, WebKitWebView *, webkit_web_view_new_with_user_content_manager,                                  \
      (WebKitWebViewBackend * backend, WebKitUserContentManager * manager), (backend, manager))                        \
    V(webkit_library, webkit_web_view_run_javascript,                                                                  \
      (WebKitWebView * view, const gchar *script, GCancellable *cancellable, GAsyncReadyCallback callback,             \
       gpointer data),                                                                                                 \
      (view, script, cancellable, callback, data))                                                                     \
    F(webkit_library, WebKitJavascriptResult *, webkit_web_view_run_javascript_finish,                                 \
      (WebKitWebView * view, GAsyncResult * result, GError * *error), (view, result, error))                           \
    V(webkit_library, webkit_web_view_terminate_web_process, (WebKitWebView * view), (view))                           \
    F(webkit_library, bool, wpe_loader_init, (const char *name), (name))                                               \
    F(webkit_library, uint32_t, wpe_unicode_to_key_code, (uint32_t code), (code))                                      \
    V(webkit_library, wpe_view_backend_add_activity_state, (struct wpe_view_backend * backend, uint32_t state),        \
      (backend, state))                                                                                                \
    V(webkit_library, wpe_view_backend_remove_activity_state, (struct wpe_view_backend * backend, uint32_t state),     \
      (backend, state))                                                                                                \
    V(webkit_library, wpe_view_backend_dispatch_axis_event,                                                            \
      (struct wpe_view_backend * backend, struct wpe_input_axis_event * event), (backend, event))                      \
    V(webkit_library, wpe_view_backend_dispatch_keyboard_event,                                                        \
      (struct wpe_view_backend * backend, struct wpe_input_keyboard_event * event), (backend, event))                  \
    V(webkit_library, wpe_view_backend_dispatch_pointer_event,                                                         \
      (struct wpe_view_backend * backend, struct wpe_input_pointer_event * event), (backend, event))                   \
    V(webkit_library, wpe_view_backend_dispatch_touch_event,                                                           \
      (struct wpe_view_backend * backend, struct wpe_input_touch_event * event), (backend, event))                     \
    V(webkit_library, wpe_view_backend_dispatch_set_device_scale_factor,                                               \
      (struct wpe_view_backend * backend, float scale), (backend, scale))                                              \
    V(webkit_library, wpe_view_backend_dispatch_set_size,                                                              \
      (struct wpe_view_backend * backend, uint32_t width, uint32_t height), (backend, width, height))                  \
    F(backend_library, bool, wpe_fdo_initialize_shm, (void), ())                                                       \
    F(backend_library, struct wl_shm_buffer *, wpe_fdo_shm_exported_buffer_get_shm_buffer,                             \
      (struct wpe_fdo_shm_exported_buffer * buffer), (buffer))                                                         \
    F(backend_library, struct wpe_view_backend_exportable_fdo *, wpe_view_backend_exportable_fdo_create,               \
      (const struct wpe_view_backend_exportable_fdo_client *client, void *data, uint32_t width, uint32_t height),      \
      (client, data, width, height))                                                                                   \
    V(backend_library, wpe_view_backend_exportable_fdo_destroy, (struct wpe_view_backend_exportable_fdo * exportable), \
      (exportable))                                                                                                    \
    V(backend_library, wpe_view_backend_exportable_fdo_dispatch_frame_complete,                                        \
      (struct wpe_view_backend_exportable_fdo * exportable), (exportable))                                             \
    V(backend_library, wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer,                           \
      (struct wpe_view_backend_exportable_fdo * exportable, struct wpe_fdo_shm_exported_buffer * buffer),              \
      (exportable, buffer))                                                                                            \
    F(backend_library, struct wpe_view_backend *, wpe_view_backend_exportable_fdo_get_view_backend,                    \
      (struct wpe_view_backend_exportable_fdo * exportable), (exportable))                                             \
    V(backend_library, wl_shm_buffer_begin_access, (struct wl_shm_buffer * buffer), (buffer))                          \
    V(backend_library, wl_shm_buffer_end_access, (struct wl_shm_buffer * buffer), (buffer))                            \
    F(backend_library, void *, wl_shm_buffer_get_data, (struct wl_shm_buffer * buffer), (buffer))                      \
    F(backend_library, uint32_t, wl_shm_buffer_get_format, (struct wl_shm_buffer * buffer), (buffer))                  \
    F(backend_library, int32_t, wl_shm_buffer_get_height, (struct wl_shm_buffer * buffer), (buffer))                   \
    F(backend_library, int32_t, wl_shm_buffer_get_stride, (struct wl_shm_buffer * buffer), (buffer))                   \
    F(backend_library, int32_t, wl_shm_buffer_get_width, (struct wl_shm_buffer * buffer), (buffer))

#define MULTISCREEN_RENAME(library, type, name, parameters, arguments)                                                 \
    type name parameters __asm__("multiscreen_" #name);
#define MULTISCREEN_RENAME_VOID(library, name, parameters, arguments)                                                  \
    void name parameters __asm__("multiscreen_" #name);
WEB_ENGINE_FUNCTIONS(MULTISCREEN_RENAME, MULTISCREEN_RENAME_VOID)
#undef MULTISCREEN_RENAME
#undef MULTISCREEN_RENAME_VOID
