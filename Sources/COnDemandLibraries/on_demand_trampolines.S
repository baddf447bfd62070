// One trampoline per function of on_demand_functions.h, named as the function: it jumps through the pointer that
// on_demand_libraries.c sets when the library is opened. Written in assembly so that one line serves every signature:
// the arguments are left in their registers and the stack untouched, and the library's function returns straight to
// the caller. Hidden, so that the libraries, once loaded, still bind their calls to each other and to themselves, not
// to these.
#include "on_demand_functions.h"

#if defined(__x86_64__)
#define TRAMPOLINE(library, name)                                                                                      \
    .globl name; .hidden name; .type name, @function; .p2align 4; name: jmp *on_demand_pointer_##name(%rip);          \
    .size name, .-name;
#elif defined(__aarch64__)
#define TRAMPOLINE(library, name)                                                                                      \
    .globl name; .hidden name; .type name, %function; .p2align 2; name: adrp x16, on_demand_pointer_##name;           \
    ldr x16, [x16, :lo12:on_demand_pointer_##name]; br x16; .size name, .-name;
#else
#error "on_demand_trampolines.S has no trampoline for this architecture"
#endif

    .text
ON_DEMAND_FUNCTIONS(TRAMPOLINE)

    .section .note.GNU-stack, "", %progbits
