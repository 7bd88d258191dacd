/*
** bridge_session.c: sessions and changesets (bridge_session.go, session.go).
** Session lifetime, change descriptions, and the trampolines from
** sqlite3changeset_apply_v2's callbacks to the Go entry points exported by
** bridge_session.go (declared here exactly as cgo declares them).
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

extern int goChangesetFilter(uintptr_t handle, char *table);
extern int goChangesetConflict(uintptr_t handle, int type, bridge_change *change);

struct bridge_sessions {
  sqlite3 *db;
  bridge_session *head;
};

#if SQLITE_VERSION_NUMBER >= 3044000
#define BRIDGE_SESSIONS_KEY "fastsqlite.sessions"

/* The client-data destructor, run by sqlite3_close_v2. The pre-update hook
** is removed first: a hook registered after the sessions has replaced
** theirs, and sqlite3session_delete would take its user data for a session.
** Without a hook, each delete only frees. */
static void bridge_sessions_free(void *p) {
  bridge_sessions *l = (bridge_sessions *)p;
  if (l->head) sqlite3_preupdate_hook(l->db, 0, 0);
  while (l->head) {
    bridge_session *bs = l->head;
    l->head = bs->next;
    sqlite3session_delete(bs->s);
    free(bs);
  }
  free(l);
}
#endif

int bridge_session_create(sqlite3 *db, const char *schema, bridge_session **out) {
#if SQLITE_VERSION_NUMBER >= 3044000
  bridge_sessions *l = (bridge_sessions *)sqlite3_get_clientdata(db, BRIDGE_SESSIONS_KEY);
  bridge_session *bs;
  int rc;
  *out = 0;
  if (!l) {
    l = (bridge_sessions *)calloc(1, sizeof(*l));
    if (!l) return SQLITE_NOMEM;
    l->db = db;
    /* On failure SQLite calls the destructor itself. */
    if (sqlite3_set_clientdata(db, BRIDGE_SESSIONS_KEY, l, bridge_sessions_free) != SQLITE_OK) return SQLITE_NOMEM;
  }
  bs = (bridge_session *)calloc(1, sizeof(*bs));
  if (!bs) return SQLITE_NOMEM;
  rc = sqlite3session_create(db, schema, &bs->s);
  if (rc != SQLITE_OK) {
    free(bs);
    return rc;
  }
  bs->list = l;
  bs->next = l->head;
  if (l->head) l->head->prev = bs;
  l->head = bs;
  *out = bs;
  return SQLITE_OK;
#else
  (void)db;
  (void)schema;
  *out = 0;
  return SQLITE_MISUSE;
#endif
}

void bridge_session_delete(bridge_session *bs, uintptr_t hook) {
  bridge_sessions *l = bs->list;
  if (bs->prev) bs->prev->next = bs->next;
  else l->head = bs->next;
  if (bs->next) bs->next->prev = bs->prev;
  if (hook) {
    sqlite3_preupdate_hook(l->db, 0, 0);
    sqlite3session_delete(bs->s);
    bridge_preupdate_hook(l->db, hook);
  } else {
    sqlite3session_delete(bs->s);
  }
  free(bs);
}

/* Describes the change it points at in c; conflict is the conflict type
** inside a conflict handler, 0 otherwise. A foreign key conflict carries no
** change, only the count of violations. */
static int bridge_change_read(bridge_change *c, sqlite3_changeset_iter *it, int conflict) {
  const char *table = 0;
  unsigned char *pk = 0;
  int i, rc, op = 0, ncol = 0, indirect = 0, nfk = 0;
  c->table = 0;
  c->pk = 0;
  c->op = c->ncol = c->indirect = c->nfk = 0;
  if (conflict == SQLITE_CHANGESET_FOREIGN_KEY) {
    rc = sqlite3changeset_fk_conflicts(it, &nfk);
    c->nfk = nfk;
    return rc;
  }
  rc = sqlite3changeset_op(it, &table, &ncol, &op, &indirect);
  if (rc == SQLITE_OK) rc = sqlite3changeset_pk(it, &pk, 0);
  if (rc != SQLITE_OK) return rc;
  if (ncol > c->cap) {
    bridge_col *p = (bridge_col *)realloc(c->cols, (size_t)ncol * 3 * sizeof(bridge_col));
    if (!p) return SQLITE_NOMEM;
    c->cols = p;
    c->cap = ncol;
  }
  for (i = 0; i < ncol; i++) {
    bridge_col *ov = &c->cols[i], *nv = &c->cols[ncol + i], *cv = &c->cols[2 * ncol + i];
    sqlite3_value *v;
    ov->type = nv->type = cv->type = BRIDGE_UNDEFINED;
    if (op != SQLITE_INSERT) {
      v = 0;
      if ((rc = sqlite3changeset_old(it, i, &v)) != SQLITE_OK) return rc;
      if (v && (rc = bridge_value(ov, v)) != SQLITE_OK) return rc;
    }
    if (op != SQLITE_DELETE) {
      v = 0;
      if ((rc = sqlite3changeset_new(it, i, &v)) != SQLITE_OK) return rc;
      if (v && (rc = bridge_value(nv, v)) != SQLITE_OK) return rc;
    }
    if (conflict == SQLITE_CHANGESET_DATA || conflict == SQLITE_CHANGESET_CONFLICT) {
      v = 0;
      if ((rc = sqlite3changeset_conflict(it, i, &v)) != SQLITE_OK) return rc;
      if (v && (rc = bridge_value(cv, v)) != SQLITE_OK) return rc;
    }
  }
  c->table = table;
  c->pk = pk;
  c->op = op;
  c->ncol = ncol;
  c->indirect = indirect;
  return SQLITE_OK;
}

/* A malloc'd copy of p[0:n] (NULL for n == 0), in *out. */
static int bridge_copy_bytes(const void *p, int n, void **out) {
  *out = 0;
  if (n <= 0) return SQLITE_OK;
  *out = malloc((size_t)n);
  if (!*out) return SQLITE_NOMEM;
  memcpy(*out, p, (size_t)n);
  return SQLITE_OK;
}

int bridge_changes_start(const void *p, int n, bridge_changes **out) {
  bridge_changes *c = (bridge_changes *)calloc(1, sizeof(*c));
  int rc;
  *out = 0;
  if (!c) return SQLITE_NOMEM;
  rc = bridge_copy_bytes(p, n, &c->buf);
  if (rc == SQLITE_OK) rc = sqlite3changeset_start(&c->it, n, c->buf);
  if (rc != SQLITE_OK) {
    free(c->buf);
    free(c);
    return rc;
  }
  *out = c;
  return SQLITE_OK;
}

int bridge_changes_next(bridge_changes *c) {
  int rc = sqlite3changeset_next(c->it);
  if (rc == SQLITE_ROW) {
    int rc2 = bridge_change_read(&c->change, c->it, 0);
    if (rc2 != SQLITE_OK) return rc2;
  }
  return rc;
}

int bridge_changes_finish(bridge_changes *c) {
  int rc = sqlite3changeset_finalize(c->it);
  free(c->change.cols);
  free(c->buf);
  free(c);
  return rc;
}

/* The context of one bridge_changeset_apply, on its C stack. */
typedef struct bridge_apply {
  uintptr_t handle;
  int rc;               /* first failure describing a conflict */
  bridge_change change; /* the conflicting change */
} bridge_apply;

static int bridge_apply_filter(void *p, const char *table) {
  return goChangesetFilter(((bridge_apply *)p)->handle, (char *)table);
}

static int bridge_apply_conflict(void *p, int type, sqlite3_changeset_iter *it) {
  bridge_apply *a = (bridge_apply *)p;
  int rc = bridge_change_read(&a->change, it, type);
  if (rc != SQLITE_OK) {
    if (a->rc == SQLITE_OK) a->rc = rc;
    return SQLITE_CHANGESET_ABORT;
  }
  return goChangesetConflict(a->handle, type, &a->change);
}

int bridge_changeset_apply(bridge_conn *c, const void *p, int n, uintptr_t handle, int filter, int flags,
                           int *read_rc) {
  sqlite3 *db = c->db;
  bridge_apply a;
  void *buf;
  int rc;
  memset(&a, 0, sizeof(a));
  a.handle = handle;
  *read_rc = SQLITE_OK;
  rc = bridge_copy_bytes(p, n, &buf);
  if (rc != SQLITE_OK) return rc;
  /* The filter and conflict handlers may run SQL on the connection, as a
  ** step's callbacks may: counted in depth the same way. */
  bridge_depth(c, 1);
  rc = sqlite3changeset_apply_v2(db, n, buf, filter ? bridge_apply_filter : 0, bridge_apply_conflict, &a, 0, 0,
                                 flags);
  bridge_depth(c, -1);
  free(a.change.cols);
  free(buf);
  *read_rc = a.rc;
  return rc;
}

int bridge_changeset_invert(const void *p, int n, int *nout, void **out) {
  sqlite3_changeset_iter *it = 0;
  int rc, rc2;
  *nout = 0;
  *out = 0;
  rc = sqlite3changeset_start(&it, n, (void *)p);
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3changeset_next(it)) == SQLITE_ROW) {
  }
  rc2 = sqlite3changeset_finalize(it);
  if (rc != SQLITE_DONE) return rc;
  if (rc2 != SQLITE_OK) return rc2;
  return sqlite3changeset_invert(n, p, nout, out);
}

#endif /* BRIDGE_TU */
