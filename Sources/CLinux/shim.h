// Linux event file descriptors that Glibc's Swift module does not export (like swift-nio's CNIOLinux).
#pragma once
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <signal.h>
