/*
** bridge.c: the only hand-written C of the driver, as one translation unit.
** See bridge.h for the contract. The core (prepare, bind, step, row buffer,
** cancellation) never calls back into Go; only the busy handler, hooks,
** user-defined functions, virtual tables and sessions do, and only when one
** is registered.
**
** The C is split by concept into parts (bridge_*.c) that this file includes,
** so that they and SQLite stay one translation unit. Each part's text is
** wrapped in #ifdef BRIDGE_TU, defined only here: Go compiles every .c file
** of the package directory on its own, and a part compiled so is empty, as
** sqlite3-binding.c is when USE_LIBSQLITE3 stops its own compile. (Not
** "//go:build ignore" instead: Go then leaves the part out of the package's
** build cache key, and an edit to it would not rebuild the package. Not
** another extension either: only .c and .h files are hashed, and a .h that
** defines functions misleads.) A subdirectory would be dropped by go mod
** vendor, which keeps only directories with Go files.
**
** Layering, lowest first; a part calls only the parts listed before it
** (and SQLite and Go), never one listed after it:
**   bridge_cancel.c       cancellation: the progress handler, arming
**   bridge_readonly.c     whether a connection can write (stepping ahead)
**   bridge_share*.c       the share layer: the VFS through which connections
**                         of this process share a file, in parts:
**     bridge_share.c        the registry of files, each connection's link
**     bridge_share_hold.c   the WAL bound's hold on new read transactions
**     bridge_share_queue.c  the write lock's queue, the busy handler in it
**     bridge_share_vfs.c    the VFS's methods, watching the locks
**     bridge_share_bound.c  the WAL bound: checkpoint, restart of the WAL
**     bridge_share_stats.c  the file's counters (FileStats)
**   bridge_unlock.c       shared-cache lock waits (sqlite_unlock_notify tag)
**   bridge_conn.c         open, configure, close a connection; its last error
**   bridge_checkpoint.c   the auto-checkpoint, after the write turn
**   bridge_stmt.c         prepare, describe, finalize a statement
**   bridge_group.c        whether a connection may join a group commit
**   bridge_bind.c         bind the parameters Go wrote
**   bridge_rows.c         run statements, step rows into the row buffer
**   bridge_hooks.c        hooks and trace trampolines
**   bridge_db.c           serialize, deserialize, load an extension
**   bridge_func.c         user-defined functions and collations
**   bridge_vtab.c         virtual tables
**   bridge_session.c      sessions and changesets
**   bridge_direct.c       the direct statement API
** The share layer is below the bridge: bridge code calls bridge_share_*, and
** share code calls beneath it only bridge_cancel.c (bridge_cancelled, and
** bridge_progress in the busy handler) and bridge_readonly.c
** (bridge_read_only). bridge_share.c says what each of its parts holds.
*/
/* The vendored amalgamation is compiled here, in the bridge's translation unit
** (see compile_options.go), so that the compiler can inline SQLite's column
** accessors into the row loop. cgo compiles with -fPIC, where a function of
** default visibility may be interposed at run time and so is never inlined;
** hidden visibility keeps SQLite's functions local to the binary (nothing
** loads them by name: extensions call through sqlite3_api_routines). */
#ifdef BRIDGE_UNITY
#undef USE_LIBSQLITE3
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#define SQLITE_API __attribute__((visibility("hidden")))
#endif
#include "sqlite3-binding.c"
#endif
#include <errno.h>
#include <string.h>
#include "bridge.h"

/* The Go entry points, for the parts that call Go. Included once: it
** carries the preambles of the Go files that export them. */
#include "_cgo_export.h"

#define BRIDGE_TU
#include "bridge_cancel.c"
#include "bridge_readonly.c"
#include "bridge_share.c"
#include "bridge_share_hold.c"
#include "bridge_share_holder.c"
#include "bridge_share_queue.c"
#include "bridge_share_vfs.c"
#include "bridge_share_bound.c"
#include "bridge_share_stats.c"
#include "bridge_unlock.c"
#include "bridge_conn.c"
#include "bridge_checkpoint.c"
#include "bridge_stmt.c"
#include "bridge_group.c"
#include "bridge_bind.c"
#include "bridge_rows.c"
#include "bridge_hooks.c"
#include "bridge_db.c"
#include "bridge_func.c"
#include "bridge_vtab.c"
#include "bridge_session.c"
#include "bridge_direct.c"
