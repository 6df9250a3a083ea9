// The C API of libpq as Debian's libpq-dev ships it. Only the DataStorePostgres Swift module
// imports this, with `internal import CPostgres`.
#include <libpq-fe.h>
