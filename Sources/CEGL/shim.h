#pragma once
// Without these EGLNativeWindowType becomes an X11 type (see shared/design.md).
#define WL_EGL_PLATFORM 1
#define EGL_NO_X11 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
