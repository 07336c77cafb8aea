#ifndef NBGW_CUDEV_SHIM_H
#define NBGW_CUDEV_SHIM_H
#include <libudev.h>
#endif
