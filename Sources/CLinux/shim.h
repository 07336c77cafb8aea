#ifndef NBGW_CLINUX_SHIM_H
#define NBGW_CLINUX_SHIM_H
// glibc headers that Swift's Glibc module leaves out: <malloc.h> (mallopt: nbgwd's arena limit)
// and <sys/epoll.h> (ATKit's serial poller). Part of libc: nothing to link.
#if defined(__linux__)
#include <malloc.h>
#include <sys/epoll.h>
#endif
#endif
