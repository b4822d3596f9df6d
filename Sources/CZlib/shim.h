#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro Swift cannot import: a raw deflate stream (a zip entry's data,
   no zlib header) is inflated with negative window bits. */
static inline int CZlib_inflateInitRaw(z_streamp stream) {
  return inflateInit2(stream, -MAX_WBITS);
}

#endif
