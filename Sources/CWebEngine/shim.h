#pragma once
// WPE WebKit, libwpe and wpebackend-fdo: their headers, and typed helpers over them (web_kit.h, web_backend.h).
// The libraries are opened with the first page, not linked (COnDemandLibraries, on_demand_web_engine): every function
// of theirs Multiscreen calls is listed in its on_demand_functions.h.
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wpe/fdo.h>
#include <wpe/unstable/fdo-shm.h>
#include <wpe/webkit.h>
#include <wpe/wpe.h>

#include "web_backend.h"
#include "web_kit.h"
