// Linux headers Glibc's Swift module does not export (like swift-nio's CNIOLinux): event file descriptors and
// mallopt, and the calls below.
#pragma once
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
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

// The spin-wait hint (x86 `pause`, AArch64 `yield`), which Swift has no spelling for. A loop that re-reads a word
// another core is about to write should wait here between reads: the core then keeps few speculative loads of that
// line in flight, so the write that ends the wait costs one reload rather than a pipeline flush (Intel's and AMD's
// optimisation manuals recommend it for every spin-wait loop).
static inline void ms_spin_wait_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}
