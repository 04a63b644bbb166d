#ifndef CKIOSK_ZLIB_SHIM_H
#define CKIOSK_ZLIB_SHIM_H

#include <zlib.h>

// `inflateInit2` is a function-like macro (it passes ZLIB_VERSION and sizeof(z_stream) to `inflateInit2_`), which
// Swift does not import: this wrapper is the same call.
static inline int kiosk_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

// `deflateInit2` is a function-like macro as well.
static inline int kiosk_deflateInit2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif
