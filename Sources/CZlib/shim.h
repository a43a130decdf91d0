#ifndef BEACON_CZLIB_SHIM_H
#define BEACON_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 and inflateInit2 are macros, which Swift cannot call: wrap them.
static inline int beacon_deflateInit2(z_streamp strm, int level) {
    /* windowBits 15 + 16 selects the gzip wrapper. */
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int beacon_inflateInit2(z_streamp strm) {
    /* windowBits 15 + 32: accept zlib or gzip headers. */
    return inflateInit2(strm, 15 + 32);
}
#endif
