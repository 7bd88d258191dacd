package sqlite3

// The cgo boundary of backup.go, serialize.go, blob.go, limits.go and
// extension.go: one wrapper per SQLite call (or bridge_db.c helper). Go memory
// handed to C is only read or written during the call.

/*
#include "bridge.h"
*/
import "C"

import "unsafe"

// The constants of limits.go must be SQLite's.
var (
	_ [SQLITE_LIMIT_LENGTH - C.SQLITE_LIMIT_LENGTH]struct{}
	_ [C.SQLITE_LIMIT_LENGTH - SQLITE_LIMIT_LENGTH]struct{}
	_ [SQLITE_LIMIT_WORKER_THREADS - C.SQLITE_LIMIT_WORKER_THREADS]struct{}
	_ [C.SQLITE_LIMIT_WORKER_THREADS - SQLITE_LIMIT_WORKER_THREADS]struct{}
	_ [SQLITE_LIMIT_VARIABLE_NUMBER - C.SQLITE_LIMIT_VARIABLE_NUMBER]struct{}
	_ [C.SQLITE_LIMIT_VARIABLE_NUMBER - SQLITE_LIMIT_VARIABLE_NUMBER]struct{}
	_ [SQLITE_FCNTL_PERSIST_WAL - C.SQLITE_FCNTL_PERSIST_WAL]struct{}
	_ [C.SQLITE_FCNTL_PERSIST_WAL - SQLITE_FCNTL_PERSIST_WAL]struct{}
	_ [SQLITE_FCNTL_CKSM_FILE - C.SQLITE_FCNTL_CKSM_FILE]struct{}
	_ [C.SQLITE_FCNTL_CKSM_FILE - SQLITE_FCNTL_CKSM_FILE]struct{}
	_ [SQLITE_FCNTL_MMAP_SIZE - C.SQLITE_FCNTL_MMAP_SIZE]struct{}
	_ [C.SQLITE_FCNTL_MMAP_SIZE - SQLITE_FCNTL_MMAP_SIZE]struct{}
	_ [int(CheckpointPassive) - C.SQLITE_CHECKPOINT_PASSIVE]struct{}
	_ [C.SQLITE_CHECKPOINT_PASSIVE - int(CheckpointPassive)]struct{}
	_ [int(CheckpointFull) - C.SQLITE_CHECKPOINT_FULL]struct{}
	_ [C.SQLITE_CHECKPOINT_FULL - int(CheckpointFull)]struct{}
	_ [int(CheckpointRestart) - C.SQLITE_CHECKPOINT_RESTART]struct{}
	_ [C.SQLITE_CHECKPOINT_RESTART - int(CheckpointRestart)]struct{}
	_ [int(CheckpointTruncate) - C.SQLITE_CHECKPOINT_TRUNCATE]struct{}
	_ [C.SQLITE_CHECKPOINT_TRUNCATE - int(CheckpointTruncate)]struct{}
)

// cStrings copies strs, NUL-terminated, into one C allocation (one malloc
// for all of them); free releases it.
func cStrings(strs ...string) (ptrs [3]*C.char, free func()) {
	n := 0
	for _, s := range strs {
		n += len(s) + 1
	}
	block := C.malloc(C.size_t(n)) // cgo's C.malloc never returns nil
	buf := unsafe.Slice((*byte)(block), n)
	off := 0
	for i, s := range strs {
		copy(buf[off:], s)
		buf[off+len(s)] = 0
		ptrs[i] = (*C.char)(unsafe.Pointer(&buf[off]))
		off += len(s) + 1
	}
	return ptrs, func() { C.free(block) }
}

// cErrcode calls sqlite3_extended_errcode: the code of the last failure on h.
func cErrcode(h connHandle) int { return int(C.sqlite3_extended_errcode(h.db)) }

// ---- backup ----

type backupHandle = *C.sqlite3_backup

// cBackupInit calls sqlite3_backup_init; nil on failure (the error is dst's).
func cBackupInit(dst connHandle, dstName string, src connHandle, srcName string) backupHandle {
	p, free := cStrings(dstName, srcName)
	defer free()
	return C.sqlite3_backup_init(dst.db, p[0], src.db, p[1])
}

// cBackupStep calls sqlite3_backup_step.
func cBackupStep(b backupHandle, pages int) int { return int(C.sqlite3_backup_step(b, C.int(pages))) }

// cBackupRemaining calls sqlite3_backup_remaining.
func cBackupRemaining(b backupHandle) int { return int(C.sqlite3_backup_remaining(b)) }

// cBackupPageCount calls sqlite3_backup_pagecount.
func cBackupPageCount(b backupHandle) int { return int(C.sqlite3_backup_pagecount(b)) }

// cBackupFinish calls sqlite3_backup_finish.
func cBackupFinish(b backupHandle) int { return int(C.sqlite3_backup_finish(b)) }

// ---- serialize ----

// cSerialize calls bridge_serialize (sqlite3_serialize) and copies the
// database into a new Go slice: one copy from SQLite's own memory for an
// in-memory database, a copy into a C buffer and then into Go otherwise.
func cSerialize(h connHandle, schema string) ([]byte, int) {
	p, free := cStrings(schema)
	defer free()
	var out *C.uchar
	var size C.sqlite3_int64
	var owned C.int
	rc := int(C.bridge_serialize(h.db, p[0], &out, &size, &owned))
	if rc != sqliteOK {
		return nil, rc
	}
	if int64(size) > int64(maxInt) {
		if owned != 0 {
			C.sqlite3_free(unsafe.Pointer(out))
		}
		return nil, sqliteTooBig
	}
	b := make([]byte, int(size))
	if size > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size)))
	}
	if owned != 0 {
		C.sqlite3_free(unsafe.Pointer(out))
	}
	return b, sqliteOK
}

const maxInt = int(^uint(0) >> 1)

// cDeserialize calls bridge_deserialize: b is copied into sqlite3_malloc64
// memory that SQLite owns (sqlite3_deserialize with FREEONCLOSE|RESIZEABLE).
func cDeserialize(h connHandle, schema string, b []byte) int {
	p, free := cStrings(schema)
	defer free()
	var ptr unsafe.Pointer
	if len(b) > 0 {
		ptr = unsafe.Pointer(&b[0])
	}
	return int(C.bridge_deserialize(h.db, p[0], ptr, C.sqlite3_int64(len(b))))
}

// ---- blob ----

type blobHandle = *C.sqlite3_blob

// cBlobOpen calls sqlite3_blob_open.
func cBlobOpen(h connHandle, schema, table, column string, rowid int64, write bool) (blobHandle, int) {
	p, free := cStrings(schema, table, column)
	defer free()
	flags := C.int(0)
	if write {
		flags = 1
	}
	var b blobHandle
	rc := C.sqlite3_blob_open(h.db, p[0], p[1], p[2], C.sqlite3_int64(rowid), flags, &b)
	return b, int(rc)
}

// cBlobBytes calls sqlite3_blob_bytes.
func cBlobBytes(b blobHandle) int { return int(C.sqlite3_blob_bytes(b)) }

// cBlobRead calls sqlite3_blob_read straight into p (len(p) > 0).
func cBlobRead(b blobHandle, p []byte, off int) int {
	return int(C.sqlite3_blob_read(b, unsafe.Pointer(&p[0]), C.int(len(p)), C.int(off)))
}

// cBlobWrite calls sqlite3_blob_write straight from p (len(p) > 0).
func cBlobWrite(b blobHandle, p []byte, off int) int {
	return int(C.sqlite3_blob_write(b, unsafe.Pointer(&p[0]), C.int(len(p)), C.int(off)))
}

// cBlobReopen calls sqlite3_blob_reopen.
func cBlobReopen(b blobHandle, rowid int64) int {
	return int(C.sqlite3_blob_reopen(b, C.sqlite3_int64(rowid)))
}

// cBlobClose calls sqlite3_blob_close.
func cBlobClose(b blobHandle) int { return int(C.sqlite3_blob_close(b)) }

// ---- limits, file control, file names, checkpoints ----

// cLimit calls sqlite3_limit: sets limit id to v (v < 0: leaves it) and
// returns its previous value.
func cLimit(h connHandle, id, v int) int { return int(C.sqlite3_limit(h.db, C.int(id), C.int(v))) }

// cFileControlInt calls sqlite3_file_control with a pointer to an int.
func cFileControlInt(h connHandle, name string, op int, arg int) int {
	p, free := cStrings(name)
	defer free()
	v := C.int(arg)
	return int(C.sqlite3_file_control(h.db, p[0], C.int(op), unsafe.Pointer(&v)))
}

// cFileControlInt64 calls sqlite3_file_control with a pointer to an sqlite3_int64.
func cFileControlInt64(h connHandle, name string, op int, arg int64) int {
	p, free := cStrings(name)
	defer free()
	v := C.sqlite3_int64(arg)
	return int(C.sqlite3_file_control(h.db, p[0], C.int(op), unsafe.Pointer(&v)))
}

// cDBFilename calls sqlite3_db_filename.
func cDBFilename(h connHandle, name string) string {
	p, free := cStrings(name)
	defer free()
	return C.GoString(C.sqlite3_db_filename(h.db, p[0]))
}

// cWALCheckpoint calls sqlite3_wal_checkpoint_v2; name "" checkpoints every
// attached database.
func cWALCheckpoint(h connHandle, name string, mode int) (logFrames, checkpointed, rc int) {
	var log, ckpt C.int
	var cname *C.char
	if name != "" {
		p, free := cStrings(name)
		defer free()
		cname = p[0]
	}
	r := C.sqlite3_wal_checkpoint_v2(h.db, cname, C.int(mode), &log, &ckpt)
	return int(log), int(ckpt), int(r)
}

// ---- extensions ----

// cLoadExtension calls bridge_load_extension: enable extension loading (C API
// only), sqlite3_load_extension, disable. entry "" lets SQLite derive the
// entry point from the file name.
func cLoadExtension(h connHandle, lib, entry string) (int, string) {
	p, free := cStrings(lib, entry)
	defer free()
	centry := p[1]
	if entry == "" {
		centry = nil
	}
	var msg *C.char
	rc := int(C.bridge_load_extension(h.db, p[0], centry, &msg))
	s := ""
	if msg != nil {
		s = C.GoString(msg)
		C.sqlite3_free(unsafe.Pointer(msg))
	}
	return rc, s
}
