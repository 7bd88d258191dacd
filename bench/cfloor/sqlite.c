/* The vendored amalgamation, compiled in this package with the driver's
** options, which bench/cmd/compare passes in CGO_CFLAGS. */
#include "sqlite3-binding.c"
