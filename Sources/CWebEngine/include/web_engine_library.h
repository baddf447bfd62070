#pragma once
// WPE WebKit is opened when the first web page is shown, not when the process starts.
//
// Why: the executable is not linked against WPE WebKit, libwpe, wpebackend-fdo and libsoup. With them the dynamic
// loader mapped and bound about 45 more libraries at every start and every CLI call (21-32 ms of each start here,
// measured on Multiscreen), and most configurations show no web page. Instead, web_engine_library.c defines every
// function of theirs that Multiscreen calls (web_engine_functions.h), and each definition calls the library's
// function that multiscreen_web_engine_open looked up.
//
// The libraries stay loaded until the process ends: WebKit cannot be unloaded.

/// Opens WPE WebKit and wpebackend-fdo and looks up every function Multiscreen calls in them. Returns NULL when all
/// were found (also when they already were), else why not, valid until the next call: a library missing or broken, or
/// a function it lacks (a WebKit older than the one built against). Call on the display thread, before any other
/// function of this module; until it has succeeded, calling one ends the process with a message naming it.
const char *multiscreen_web_engine_open(void);
