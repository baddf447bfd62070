#pragma once
// WPE WebKit, its wpebackend-fdo view backend and the loader that opens both on first use.
#include "web_backend.h"
#include "web_engine_library.h"
#include "web_kit.h"
