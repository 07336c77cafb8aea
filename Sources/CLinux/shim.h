#ifndef NBGW_CLINUX_SHIM_H
#define NBGW_CLINUX_SHIM_H
// glibc headers and declarations that Swift's Glibc module leaves out: <malloc.h> (mallopt:
// nbgwd's arena limit), <sys/epoll.h> (ATKit's serial poller), four functions of glibc for the
// daemon's state-change hooks (pipe2, and three of 2.34 and later), accept4 for its listeners, and the peer credentials of a
// Unix socket for its control socket; <sys/xattr.h> (a secret file's POSIX ACL, NBGWCore's
// SecretFileAccess). Part of libc: nothing to link.
#if defined(__linux__)
#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/xattr.h>

// <spawn.h> declares these only under _GNU_SOURCE, and <sys/pidfd.h> is not in the Glibc module;
// defining _GNU_SOURCE here would change structures other modules also define (fd_set's fields)
// and break the build, so they are declared as glibc exports them.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
extern int pidfd_open(pid_t pid, unsigned int flags);
// <unistd.h> declares pipe2 only under _GNU_SOURCE.
extern int pipe2(int fds[2], int flags);
// <sys/socket.h> declares accept4 only under _GNU_SOURCE (PosixSupport's acceptConnection).
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
// <pthread.h> declares pthread_setname_np only under _GNU_SOURCE (PosixSupport's work queues
// name their threads for `top -H`).
extern int pthread_setname_np(pthread_t thread, const char *name);

/// struct ucred of unix(7), which glibc declares only under _GNU_SOURCE (see above): the kernel's
/// layout, pid then uid then gid.
struct nbgw_ucred {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

/// The peer of a connected Unix socket as the kernel recorded it at connect(2) (SO_PEERCRED,
/// unix(7)): 0, or -1 with errno set.
static inline int nbgw_peer_credentials(int fd, unsigned int *uid, unsigned int *gid, int *pid) {
    struct nbgw_ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    *pid = credentials.pid;
    return 0;
}

/// SO_PEERGROUPS (Linux 4.13, asm-generic/socket.h) when the C library's headers predate it.
#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

/// The peer's supplementary groups: how many were written into `groups` (at most `capacity`), or
/// -1 with errno set (ERANGE: more than `capacity`).
static inline int nbgw_peer_groups(int fd, unsigned int *groups, int capacity) {
    socklen_t length = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return -1;
    return (int)(length / sizeof(gid_t));
}
#endif
#endif
