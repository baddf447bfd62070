#pragma once
#include <wayland-egl.h>
