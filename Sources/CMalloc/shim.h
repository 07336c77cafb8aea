#ifndef NBGW_CMALLOC_SHIM_H
#define NBGW_CMALLOC_SHIM_H
// glibc's malloc tuning (mallopt), which the Glibc module does not export; nbgwd limits the
// number of malloc arenas with it.
#if defined(__linux__)
#include <malloc.h>
#endif
#endif
