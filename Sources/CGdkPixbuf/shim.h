#pragma once
#include <gdk-pixbuf/gdk-pixbuf.h>

// GdkPixbufAnimationIter still speaks GTimeVal, which GLib deprecates: the one use is here, in milliseconds since an
// arbitrary start, so that Swift sees no deprecated type.

// An iterator over `animation` whose clock starts at 0 ms.
static inline GdkPixbufAnimationIter *cgdk_animation_iter_at_start(GdkPixbufAnimation *animation) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GTimeVal start = {0, 0};
    return gdk_pixbuf_animation_get_iter(animation, &start);
    G_GNUC_END_IGNORE_DEPRECATIONS
}

// Moves `iter` to `milliseconds` after its start; true when the frame shown changed.
static inline gboolean cgdk_animation_iter_advance_to(GdkPixbufAnimationIter *iter, long long milliseconds) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GTimeVal at = {(glong)(milliseconds / 1000), (glong)((milliseconds % 1000) * 1000)};
    return gdk_pixbuf_animation_iter_advance(iter, &at);
    G_GNUC_END_IGNORE_DEPRECATIONS
}
