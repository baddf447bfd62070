// Linux headers Glibc's Swift module does not export (like swift-nio's CNIOLinux): event file descriptors and
// mallopt.
#pragma once
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <signal.h>
#include <malloc.h>
