// Linux headers Glibc's Swift module does not export (like swift-nio's CNIOLinux): event file descriptors, inotify and
// mallopt, and the calls below.
#pragma once
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <signal.h>
#include <malloc.h>

// memfd_create(2) is declared only under _GNU_SOURCE, which Swift's Glibc module does not define: call it through
// syscall(2). Anonymous memory with a file descriptor, the storage of wl_shm pools.
#include <sys/syscall.h>
#include <unistd.h>
static inline int ms_memfd_create(const char *name, unsigned int flags) {
    return (int)syscall(SYS_memfd_create, name, flags);
}

// prctl(2) is variadic, which Swift cannot call. PR_SET_NAME names the calling thread (the kernel keeps 15 bytes).
#include <sys/prctl.h>
static inline int ms_name_calling_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// The spin-wait hint, which Swift has no spelling for: x86 `pause`, and on AArch64 `isb sy` (what Rust's
// `spin_loop` settled on, since `yield` is a no-op on most cores; not measured here); nothing elsewhere. A loop that
// re-reads a word another core is about to write waits here between reads, as Intel's and AMD's optimisation manuals
// prescribe, so that the core keeps few loads of that line in flight when the write ends the wait. On a 2-vCPU AMD
// EPYC it shortened a round trip through two rings by a fifth (docs/benchmarks.md, "Message ring").
static inline void ms_spin_wait_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("isb sy");
#endif
}

// dladdr(3) is declared only under _GNU_SOURCE too: the same function under a name of our own, with its struct
// (Dl_info's layout, fixed by glibc's ABI). Which file a loaded symbol came from.
typedef struct {
    const char *file;
    void *fileBase;
    const char *symbol;
    void *symbolAddress;
} ms_symbol_origin;
extern int ms_dladdr(const void *address, ms_symbol_origin *origin) __asm__("dladdr");
