// The C API of LMDB as Debian's liblmdb-dev ships it (0.9.24). Only the LMDB Swift module
// imports this, with `internal import CLMDB`.
#include <lmdb.h>
