#pragma once
// Without these, eglplatform.h picks the X11 typedefs and EGLNativeWindowType is an X11 Window, not a
// struct wl_egl_window pointer.
#define WL_EGL_PLATFORM 1
#define EGL_NO_X11 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
