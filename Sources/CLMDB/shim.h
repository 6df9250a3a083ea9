// The C API of LMDB as Debian's liblmdb-dev ships it (0.9.24). Only the LMDB Swift module
// imports this, with `internal import CLMDB`.
#include <lmdb.h>

// Asks the CPU to bring the `pageSize` bytes of the page holding `address` into its level-2 cache,
// without waiting. A cursor walking a B-tree in key order visits every entry of a leaf page, but the
// entries lie in insertion order within the page and the pages in allocation order within the file,
// so the hardware's own prefetcher, which follows strides, rarely guesses the next line.
// `pageSize` must be a power of two.
static inline void dsk_prefetch_page(const void *address, unsigned long pageSize) {
    const char *page = (const char *)((unsigned long)address & ~(pageSize - 1));
    for (unsigned long line = 0; line < pageSize; line += 64) __builtin_prefetch(page + line, 0, 1);
}
