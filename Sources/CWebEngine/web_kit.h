#pragma once
// WPE WebKit's UI-process API (GLib/GObject). g_signal_connect is a macro Swift cannot call, and its GCallback
// is untyped: each signal gets a typed helper here, so a callback of the wrong shape does not compile.
#include <wpe/webkit.h>

typedef void (*multiscreen_script_message_callback)(WebKitUserContentManager *, WebKitJavascriptResult *, gpointer);
typedef void (*multiscreen_load_changed_callback)(WebKitWebView *, WebKitLoadEvent, gpointer);
typedef gboolean (*multiscreen_load_failed_callback)(WebKitWebView *, WebKitLoadEvent, const gchar *, GError *,
                                                     gpointer);
typedef void (*multiscreen_terminated_callback)(WebKitWebView *, WebKitWebProcessTerminationReason, gpointer);
typedef void (*multiscreen_notify_callback)(WebKitWebView *, GParamSpec *, gpointer);

static inline gulong multiscreen_connect_script_message(WebKitUserContentManager *manager, const char *signal,
                                                        multiscreen_script_message_callback callback, gpointer data) {
    return g_signal_connect(manager, signal, G_CALLBACK(callback), data);
}

static inline gulong multiscreen_connect_load_changed(WebKitWebView *view, multiscreen_load_changed_callback callback,
                                                      gpointer data) {
    return g_signal_connect(view, "load-changed", G_CALLBACK(callback), data);
}

static inline gulong multiscreen_connect_load_failed(WebKitWebView *view, multiscreen_load_failed_callback callback,
                                                     gpointer data) {
    return g_signal_connect(view, "load-failed", G_CALLBACK(callback), data);
}

static inline gulong multiscreen_connect_terminated(WebKitWebView *view, multiscreen_terminated_callback callback,
                                                    gpointer data) {
    return g_signal_connect(view, "web-process-terminated", G_CALLBACK(callback), data);
}

static inline gulong multiscreen_connect_responsive(WebKitWebView *view, multiscreen_notify_callback callback,
                                                    gpointer data) {
    return g_signal_connect(view, "notify::is-web-process-responsive", G_CALLBACK(callback), data);
}

/// A web context whose web processes have WebKit's memory pressure settings with this limit (MiB) and a kill
/// threshold of 1 (a web process over the limit is ended). The conservative and strict thresholds keep WebKit's
/// defaults (a third and a half of the limit: caches are released first).
static inline WebKitWebContext *multiscreen_web_context_new(guint memory_limit_mib) {
    WebKitMemoryPressureSettings *settings = webkit_memory_pressure_settings_new();
    webkit_memory_pressure_settings_set_memory_limit(settings, memory_limit_mib);
    webkit_memory_pressure_settings_set_kill_threshold(settings, 1.0);
    WebKitWebContext *context =
        WEBKIT_WEB_CONTEXT(g_object_new(WEBKIT_TYPE_WEB_CONTEXT, "memory-pressure-settings", settings, NULL));
    webkit_memory_pressure_settings_free(settings);
    return context;
}

/// A web view on `backend` in `context` (NULL: WebKit's default context) with `manager`'s scripts and handlers.
static inline WebKitWebView *multiscreen_web_view_new(WebKitWebViewBackend *backend, WebKitWebContext *context,
                                                     WebKitUserContentManager *manager) {
    if (!context) return webkit_web_view_new_with_user_content_manager(backend, manager);
    return WEBKIT_WEB_VIEW(
        g_object_new(WEBKIT_TYPE_WEB_VIEW, "backend", backend, "web-context", context, "user-content-manager", manager,
                     NULL));
}

/// Ends a webkit_web_view_run_javascript call: frees its result, or its error (a script that threw, or a web
/// process that went away, still answered).
static inline void multiscreen_finish_script(GObject *source, GAsyncResult *result) {
    GError *error = NULL;
    WebKitJavascriptResult *value = webkit_web_view_run_javascript_finish(WEBKIT_WEB_VIEW(source), result, &error);
    if (value) webkit_javascript_result_unref(value);
    if (error) g_error_free(error);
}

/// The JSON text of a script message's value (a string stays a string: the caller decides what it means).
/// Returns a newly allocated string (g_free) and whether the value was a JavaScript string.
static inline char *multiscreen_script_message_text(WebKitJavascriptResult *result, gboolean *is_string) {
    JSCValue *value = webkit_javascript_result_get_js_value(result);
    *is_string = jsc_value_is_string(value);
    if (*is_string) return jsc_value_to_string(value);
    return jsc_value_to_json(value, 0);
}
