#pragma once
// WPE WebKit and its wpebackend-fdo view backend, opened on first use: their functions Multiscreen calls
// (web_engine_functions.h), typed helpers over them (web_kit.h, web_backend.h) and the loader (web_engine_library.h).
#include "web_backend.h"
#include "web_engine_functions.h"
#include "web_engine_library.h"
#include "web_kit.h"
