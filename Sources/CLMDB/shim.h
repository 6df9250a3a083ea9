// The C API of LMDB as Debian's liblmdb-dev ships it (0.9.24). Only the LMDB Swift module
// imports this, with `internal import CLMDB`.
#include <lmdb.h>

#include <stddef.h>

// Asks the CPU to bring the `pageSize` bytes of the page at `page` into its outer caches (locality
// 1: x86's PREFETCHT2), without waiting. A cursor walking a B-tree in key order visits every entry
// of a leaf page, but the entries lie in insertion order within the page and the pages in
// allocation order within the file, so the hardware's own prefetcher, which follows strides,
// rarely guesses the next line. `pageSize` is a multiple of 64. The loop is kept rolled: unrolled,
// the prefetches leave in one burst, which measured slower.
static inline void dsk_prefetch_page(const void *page, size_t pageSize) {
#pragma clang loop unroll(disable)
    for (size_t line = 0; line < pageSize; line += 64) __builtin_prefetch((const char *)page + line, 0, 1);
}
