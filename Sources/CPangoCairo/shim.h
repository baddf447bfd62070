#pragma once
#include <fribidi.h>
#include <pango/pangocairo.h>

// PANGO_SCALE is a macro Swift imports; these helpers keep the casts in one place.
static inline int cpango_units_from_pixels(int pixels) { return pixels * PANGO_SCALE; }

// Whether a paragraph of `length` code points is right-to-left by its first strong character (UAX #9 P2-P3 without
// isolates), as FriBidi, which Pango itself uses, decides it. Only the first 256 code points are looked at.
static inline int cpango_paragraph_is_rtl(const FriBidiChar *text, int length) {
    FriBidiCharType types[256];
    int count = length < 256 ? length : 256;
    fribidi_get_bidi_types(text, count, types);
    return fribidi_get_par_direction(types, count) == FRIBIDI_PAR_RTL;
}
