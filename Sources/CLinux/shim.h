#ifndef NBGW_CLINUX_SHIM_H
#define NBGW_CLINUX_SHIM_H
// glibc headers and declarations that Swift's Glibc module leaves out: <malloc.h> (mallopt:
// nbgwd's arena limit), <sys/epoll.h> (ATKit's serial poller), and, for the daemon's state-change
// hooks, four functions of glibc (pipe2, and three of 2.34 and later).
#if defined(__linux__)
#include <malloc.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/types.h>

// <spawn.h> declares these only under _GNU_SOURCE, and <sys/pidfd.h> is not in the Glibc module;
// defining _GNU_SOURCE here would change structures other modules also define (fd_set's fields)
// and break the build, so they are declared as glibc exports them.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
extern int pidfd_open(pid_t pid, unsigned int flags);
// <unistd.h> declares pipe2 only under _GNU_SOURCE.
extern int pipe2(int fds[2], int flags);
#endif
#endif
