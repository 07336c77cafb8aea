#ifndef NBGW_CLINUX_SHIM_H
#define NBGW_CLINUX_SHIM_H
// glibc headers that Swift's Glibc module leaves out: <malloc.h> (mallopt: nbgwd's arena limit),
// <sys/epoll.h> (ATKit's serial poller), and the peer credentials of a Unix socket (struct ucred
// and SO_PEERGROUPS need _GNU_SOURCE; the daemon's control socket checks who connects). Part of
// libc: nothing to link.
#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <malloc.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

/// The peer of a connected Unix socket as the kernel recorded it at connect(2) (SO_PEERCRED,
/// unix(7)): 0, or -1 with errno set.
static inline int nbgw_peer_credentials(int fd, unsigned int *uid, unsigned int *gid, int *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    *pid = credentials.pid;
    return 0;
}

/// The peer's supplementary groups (SO_PEERGROUPS, Linux 4.13): how many were written into
/// `groups` (at most `capacity`), or -1 with errno set (ERANGE: more than `capacity`).
static inline int nbgw_peer_groups(int fd, unsigned int *groups, int capacity) {
#ifdef SO_PEERGROUPS
    socklen_t length = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return -1;
    return (int)(length / sizeof(gid_t));
#else
    (void)fd;
    (void)groups;
    (void)capacity;
    return -1;
#endif
}
#endif
#endif
