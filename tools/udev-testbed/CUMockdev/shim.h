#ifndef NBGW_CUMOCKDEV_SHIM_H
#define NBGW_CUMOCKDEV_SHIM_H
#include <umockdev.h>
#endif
