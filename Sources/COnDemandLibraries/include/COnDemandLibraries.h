#pragma once

// WPE WebKit, GStreamer, GdkPixbuf, libmosquitto and libsystemd, opened at their first use rather than linked: a
// kiosk that shows no web page, no video, no image, has no fleet link and runs under no service manager never loads
// them, and every start and every CLI call is spared loading and relocating them (about 70 libraries with their
// dependencies) before its first frame. The libraries stay loaded until the process ends (WebKit cannot be unloaded).
//
// The Swift code calls these libraries' functions as declared by their own headers. Each call goes through a
// trampoline of the same name (on_demand_trampolines.S), which jumps to the library's function once
// multiscreen_open_library has found it; called before, it ends the process naming the function (a bug in the caller).

typedef enum {
    on_demand_gstreamer,   // libgstreamer, its base, app, video and pbutils libraries
    on_demand_gdk_pixbuf,  // libgdk_pixbuf (its loaders are modules it opens itself)
    on_demand_mosquitto,   // libmosquitto
    on_demand_systemd,     // libsystemd (sd_notify and the watchdog), only under a service manager
    on_demand_web_engine,  // WPE WebKit (and libwpe through it), wpebackend-fdo (and wayland-server through it)
    on_demand_library_count
} on_demand_library;

// Opens `library` and finds every function Multiscreen calls in it, once per process; later calls return at once.
// NULL when it is open; otherwise why not (the dynamic loader's error, or the function missing), in memory owned here.
// Safe to call from any thread (WebKit's functions are then called on the display thread only).
const char *multiscreen_open_library(on_demand_library library);
