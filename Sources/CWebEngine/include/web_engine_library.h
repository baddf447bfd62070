#pragma once
// WPE WebKit is opened when the first web page is shown, not when the process starts.
//
// Why: the executable is not linked against WPE WebKit, libwpe, wpebackend-fdo and libsoup. Those libraries and
// their own dependencies are about 45 of the 134 libraries a linked binary loads, and the dynamic loader's work for
// them was about 37 ms of every start and every CLI call on a 2-core machine; most configurations show no web page.
// Instead, web_engine_library.c defines every WebKit, libwpe, wpebackend-fdo and wayland-server function that
// Multiscreen calls, under its own name and checked by the compiler against that library's header, and each
// definition calls the library's function that multiscreen_web_engine_open looked up.
//
// The libraries stay loaded until the process ends: WebKit cannot be unloaded.

/// Opens WPE WebKit and wpebackend-fdo and looks up every function Multiscreen calls in them. Returns NULL when all
/// were found (also when they already were), else why not: a library missing or a function it lacks (a WebKit
/// older than the one built against). Call on the display thread, before any other function of this module; until
/// it has succeeded, calling one ends the process with a message naming it.
const char *multiscreen_web_engine_open(void);
