/*
** bridge_db.c: whole-database operations (bridge_db.go): serialize,
** deserialize, loading an extension.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

int bridge_serialize(sqlite3 *db, const char *schema, unsigned char **out, sqlite3_int64 *size, int *owned) {
  /* An in-memory database (deserialized) is read in place, without a copy. */
  *owned = 0;
  *out = sqlite3_serialize(db, schema, size, SQLITE_SERIALIZE_NOCOPY);
  if (*size < 0) return SQLITE_ERROR;
  if (*out || *size == 0) return SQLITE_OK;
  *owned = 1;
  *out = sqlite3_serialize(db, schema, size, 0);
  if (*size < 0) return SQLITE_ERROR;
  if (!*out && *size > 0) return SQLITE_NOMEM;
  return SQLITE_OK;
}

int bridge_deserialize(sqlite3 *db, const char *schema, const void *b, sqlite3_int64 n) {
  /* 20 spare zero bytes: SQLite may read a little past the end of a
  ** maliciously malformed image (see sqlite3_deserialize). */
  unsigned char *p = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 20);
  if (!p) return SQLITE_NOMEM;
  if (n > 0) memcpy(p, b, (size_t)n);
  memset(p + n, 0, 20);
  /* On failure SQLite frees p itself (FREEONCLOSE). */
  return sqlite3_deserialize(db, schema, p, n, n,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
}

int bridge_load_extension(sqlite3 *db, const char *lib, const char *entry, char **err) {
#ifdef SQLITE_OMIT_LOAD_EXTENSION
  /* The library has no sqlite3_load_extension to link against. */
  (void)db; (void)lib; (void)entry;
  *err = sqlite3_mprintf("extension loading is not compiled in (built with the sqlite_omit_load_extension tag)");
  return SQLITE_ERROR;
#else
  int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int *)0);
  *err = 0;
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_load_extension(db, lib, entry, err);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
  return rc;
#endif
}

#endif /* BRIDGE_TU */
