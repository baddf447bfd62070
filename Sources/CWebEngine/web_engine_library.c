// The functions of web_engine_functions.h, defined here and forwarded to the libraries that
// multiscreen_web_engine_open opens (web_engine_library.h says why). Each definition has the name and parameters of
// the library's own declaration and the symbol name web_engine_functions.h gives it: a definition that differs from
// the header does not compile, and the linker names any function called elsewhere and missing from the list.
#include "CWebEngine.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/// The libraries by the ABI version (soname) the headers describe.
static const char *const library_names[web_library_count] = {"libWPEWebKit-1.1.so.0", "libWPEBackend-fdo-1.0.so.1"};

// The library's function behind each name, set by multiscreen_web_engine_open.
#define POINTER(library, type, name, parameters, arguments) static __typeof__(name) *library_##name;
#define VOID_POINTER(library, name, parameters, arguments) static __typeof__(name) *library_##name;
WEB_ENGINE_FUNCTIONS(POINTER, VOID_POINTER)

/// Ends the process: a web engine function called before the engine was opened is a bug in the caller.
_Noreturn static void called_before_open(const char *name) {
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

static const char *failed(const char *what) {
    const char *reason = dlerror();
    snprintf(failure, sizeof failure, "%s", reason ? reason : what);
    return failure;
}

const char *multiscreen_web_engine_open(void) {
    static bool opened;
    if (opened) return NULL;
    void *handles[web_library_count];
    for (int library = 0; library < web_library_count; library++) {
        // RTLD_NOW: a library whose own dependencies cannot be bound fails here, with its name, not in a call later.
        // RTLD_LOCAL: WebKit's dependencies (libsoup among them) stay out of the global scope, where the libraries
        // loaded later (GStreamer's plugins, Mesa's drivers) would see them.
        handles[library] = dlopen(library_names[library], RTLD_NOW | RTLD_LOCAL);
        if (!handles[library]) return failed(library_names[library]);
    }
    // dlsym through a handle searches that library and its dependencies, never the executable: each pointer is the
    // library's own function, not the forwarder of the same name.
#define LOOK_UP(library, type, name, parameters, arguments)                                                          \
    if (!(library_##name = (__typeof__(name) *)dlsym(handles[library], #name))) goto missing;
#define VOID_LOOK_UP(library, name, parameters, arguments) LOOK_UP(library, void, name, parameters, arguments)
    WEB_ENGINE_FUNCTIONS(LOOK_UP, VOID_LOOK_UP)
    opened = true;
    return NULL;

missing:;
    // All or nothing: a forwarder whose library function was found stays unusable until every one is. The libraries
    // stay loaded (their constructors have run; WebKit cannot be unloaded), and a later open finds them again.
    const char *reason = failed("a function of the web engine is missing");
#define CLEAR(library, type, name, parameters, arguments) library_##name = NULL;
#define VOID_CLEAR(library, name, parameters, arguments) library_##name = NULL;
    WEB_ENGINE_FUNCTIONS(CLEAR, VOID_CLEAR)
    return reason;
}
