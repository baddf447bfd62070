// The pointers the trampolines of on_demand_trampolines.S jump through, and the open that sets them.
//
// Threads: a library's pointers are written once, under `lock`, before its open returns NULL. A thread calls a
// library's functions only after an open of that library returned NULL to it (or after something that did handed it
// work: a thread it started, a queue it posted to), so the mutex orders the writes before every jump through them.
// The trampolines read the pointers without a lock.
#include "COnDemandLibraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "on_demand_functions.h"

// The most shared objects one library is made of, and the NULL after them.
enum { most_objects = 5 };

// The libraries by the ABI version (soname) Multiscreen's headers describe; a function is looked up in each of its
// library's, in order.
static const char *const library_names[on_demand_library_count][most_objects + 1] = {
    [on_demand_gstreamer] = {"libgstreamer-1.0.so.0", "libgstbase-1.0.so.0", "libgstapp-1.0.so.0",
                             "libgstvideo-1.0.so.0", "libgstpbutils-1.0.so.0", NULL},
    [on_demand_gdk_pixbuf] = {"libgdk_pixbuf-2.0.so.0", NULL},
    [on_demand_mosquitto] = {"libmosquitto.so.1", NULL},
    [on_demand_systemd] = {"libsystemd.so.0", NULL},
    [on_demand_web_engine] = {"libWPEWebKit-1.1.so.0", "libWPEBackend-fdo-1.0.so.1", NULL},
};

/// Ends the process: a function of a library called before the library was opened is a bug in the caller.
_Noreturn static void called_before_open(const char *name) {
    fprintf(stderr, "multiscreen: %s called before its library was opened\n", name);
    abort();
}

// Until its library is open, each pointer holds a function that says which one was called too early. It takes no
// arguments: whatever the caller passed is ignored, and it never returns.
#define UNOPENED(library, name)                                                                                        \
    _Noreturn static void unopened_##name(void) { called_before_open(#name); }
ON_DEMAND_FUNCTIONS(UNOPENED)
#define POINTER(library, name) __attribute__((visibility("hidden"))) void *on_demand_pointer_##name = unopened_##name;
ON_DEMAND_FUNCTIONS(POINTER)

// Each function's place in on_demand_functions.h.
enum {
#define INDEX(library, name) on_demand_index_##name,
    ON_DEMAND_FUNCTIONS(INDEX)
#undef INDEX
    on_demand_function_count
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool opened[on_demand_library_count];
/// Why each library's last open failed: dlerror's text is only valid until the next dl call, so it is copied here.
static char failures[on_demand_library_count][512];

static void *find(void *const *handles, const char *name) {
    // dlsym through a handle searches that library and its dependencies, never the executable: the pointer is the
    // library's own function, not the trampoline of the same name.
    for (int index = 0; handles[index]; index++) {
        void *function = dlsym(handles[index], name);
        if (function) return function;
    }
    return NULL;
}

static const char *open_locked(on_demand_library library) {
    char *failure = failures[library];
    void *handles[most_objects + 1] = {NULL};
    for (int index = 0; library_names[library][index]; index++) {
        // RTLD_NOW: a library whose own dependencies cannot be bound fails here, with its name, not in a call later.
        // RTLD_LOCAL: its symbols stay out of the global scope, where libraries loaded later would bind to them (and
        // through which the loader walks for every symbol it binds later: Mesa's drivers, GStreamer's plugins).
        handles[index] = dlopen(library_names[library][index], RTLD_NOW | RTLD_LOCAL);
        if (!handles[index]) {
            const char *reason = dlerror();
            snprintf(failure, sizeof failures[library], "%s", reason ? reason : library_names[library][index]);
            return failure;
        }
    }
    // All or nothing: the pointers are set only once every function is found. The libraries stay loaded either way:
    // their constructors have run, and unloading them is not safe.
    void *found[on_demand_function_count] = {NULL};
#define LOOK_UP(function_library, name)                                                                                \
    if (function_library == library && !(found[on_demand_index_##name] = find(handles, #name))) {                    \
        snprintf(failure, sizeof failures[library], "%s has no function %s", library_names[library][0], #name);        \
        return failure;                                                                                                \
    }
    ON_DEMAND_FUNCTIONS(LOOK_UP)
#define SET(function_library, name)                                                                                    \
    if (function_library == library) on_demand_pointer_##name = found[on_demand_index_##name];
    ON_DEMAND_FUNCTIONS(SET)
    opened[library] = true;
    return NULL;
}

const char *multiscreen_open_library(on_demand_library library) {
    if (library < 0 || library >= on_demand_library_count) return "no such library";
    pthread_mutex_lock(&lock);
    const char *failure = opened[library] ? NULL : open_locked(library);
    pthread_mutex_unlock(&lock);
    return failure;
}
