// The C API of libpq as Debian's libpq-dev ships it, and epoll, which the reads' event thread
// waits on (Glibc's Swift module leaves it out). Only the DataStorePostgres Swift module imports
// this, with `internal import CPostgres`.
#include <libpq-fe.h>
#include <sys/epoll.h>
