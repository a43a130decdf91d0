#ifndef BEACON_CLIBDEFLATE_SHIM_H
#define BEACON_CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
