/*
** bridge_rows.c: running statements and stepping rows. Exec, a script's
** parameterless statements, query, step, batches of rows, stepping ahead where
** that cannot change the rows, and the decoding of a row (and of any value:
** bridge_value, which hooks, functions and sessions share) into the buffer Go
** reads without further cgo calls.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Describes every column of the current row in cols[0:ncol]. Returns the bytes
** of its TEXT and BLOB values, which point into SQLite's memory and must be
** read (or copied) before the next step (an empty value is never read), or
** -1 when SQLite ran out of memory converting a value to TEXT: the row is
** then an SQLITE_NOMEM error, never a NULL the database does not hold.
** Flattened: with the amalgamation in this translation unit, the accessors
** below (and SQLite's lookup of the column) are inlined, instead of four or
** five calls per column, a fifth of the C time of a wide scan. */
#if defined(__GNUC__)
__attribute__((flatten))
#endif
static sqlite3_int64 bridge_fill_into(sqlite3_stmt *st, bridge_col *cols, int ncol) {
  sqlite3_int64 size = 0;
  int i;
  for (i = 0; i < ncol; i++) {
    bridge_col *c = &cols[i];
    /* One lookup of the result column instead of one per sqlite3_column_*
    ** call (each looks the column up and takes and drops the connection's
    ** mutex). The value is "unprotected": safe here, since database/sql
    ** serializes the use of a connection and nothing else touches it. */
    sqlite3_value *v = sqlite3_column_value(st, i);
    int t = sqlite3_value_type(v);
    c->type = t;
    switch (t) {
    case SQLITE_INTEGER: c->v.i = sqlite3_value_int64(v); break;
    case SQLITE_FLOAT: c->v.f = sqlite3_value_double(v); break;
    case SQLITE_TEXT:
#if SQLITE_VERSION_NUMBER >= 3041000
      /* UTF-8 text (the database's encoding, the usual case) is read as it
      ** is, by length: sqlite3_value_text would first give a value without
      ** a NUL terminator (a bound parameter's, returned by the query) one,
      ** copying its bytes. BLOB access to TEXT converts nothing. */
      if (sqlite3_value_encoding(v) == SQLITE_UTF8) {
        c->n = sqlite3_value_bytes(v);
        c->v.p = c->n ? sqlite3_value_blob(v) : (const void *)"";
        if (!c->v.p) return -1;
        size += c->n;
        break;
      }
#endif
      c->v.p = sqlite3_value_text(v);
      c->n = sqlite3_value_bytes(v);
      if (!c->v.p) return -1;
      size += c->n;
      break;
    case SQLITE_BLOB:
      c->v.p = sqlite3_value_blob(v);
      c->n = sqlite3_value_bytes(v);
      size += c->n;
      break;
    default: break;
    }
  }
  return size;
}

/* Fills s->cols: SQLITE_ROW, or SQLITE_NOMEM (see bridge_fill_into). */
static int bridge_fill(bridge_stmt *s) {
  return bridge_fill_into(s->stmt, s->cols, s->ncol) < 0 ? SQLITE_NOMEM : SQLITE_ROW;
}

/* Describes one value as bridge_fill describes a column: SQLITE_NOMEM when
** SQLite ran out of memory converting it to TEXT. */
static int bridge_value(bridge_col *c, sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  c->type = t;
  c->n = 0;
  switch (t) {
  case SQLITE_INTEGER: c->v.i = sqlite3_value_int64(v); break;
  case SQLITE_FLOAT: c->v.f = sqlite3_value_double(v); break;
  case SQLITE_TEXT:
    c->v.p = sqlite3_value_text(v);
    c->n = sqlite3_value_bytes(v);
    if (!c->v.p) return SQLITE_NOMEM;
    break;
  case SQLITE_BLOB:
    c->v.p = sqlite3_value_blob(v);
    c->n = sqlite3_value_bytes(v);
    break;
  default: c->v.p = 0; break;
  }
  return SQLITE_OK;
}

/* Copies the TEXT and BLOB values of a batch row (the caller checked that
** they fit) to s->text at *used, so that the batch can step past the row. */
static void bridge_copy_out(bridge_stmt *s, bridge_col *row, int *used) {
  int i;
  for (i = 0; i < s->ncol; i++) {
    bridge_col *c = &row[i];
    if ((c->type == SQLITE_TEXT || c->type == SQLITE_BLOB) && c->n > 0) {
      memcpy(s->text + *used, c->v.p, (size_t)c->n);
      c->v.p = s->text + *used;
      *used += c->n;
    }
  }
}

/* Steps once. depth tells Go that SQL run by a callback (a Go function or
** hook using this connection) is nested inside this step. A row produced after
** sqlite3_interrupt (a panicking collation) is not a row. */
static int bridge_run_stmt(bridge_conn *c, sqlite3_stmt *st) {
  sqlite3_stmt *outer = c->running;
  int rc, later = bridge_checkpoint_step(c, st);
  bridge_depth(c, 1);
  c->running = st;
  c->waited = 0;
  c->refused_by.kind = 0;
  c->refused_excl = 0;
  if (c->holder_sql_pending) bridge_share_note_sql(c, st); /* bridge_share_holder.c */
  rc = sqlite3_step(st);
  c->running = outer;
  bridge_depth(c, -1);
  if (later) bridge_checkpoint_step_end(c);
  if (c->vfile && c->depth == 0 && rc != SQLITE_ROW) bridge_share_after(c);
#if SQLITE_VERSION_NUMBER >= 3041000
  if (rc == SQLITE_ROW && sqlite3_is_interrupted(c->db)) rc = SQLITE_INTERRUPT;
#endif
  return rc;
}

static int bridge_run(bridge_stmt *s) { return bridge_run_stmt(s->conn, s->stmt); }

/* Whether the rows that s, stopped on a row, has still to return are already
** made: every instruction that can run before the program halts only reads
** a sorter, an ephemeral table or registers (the output loop of an ORDER BY
** that needed a sort, of a LIMIT kept in an ephemeral index...). Then
** nothing done on the connection between two steps, a write included, can
** change them, and no user function or virtual table runs: they may be
** stepped ahead on a connection that can write, with the same results as
** one step per row. Anything else, or more than BRIDGE_FIXED_OPS
** instructions, answers no. The answer depends only on the program and the
** instruction the statement stopped after, so it is kept for the next row.
** Asked after the first row of a run (bridge_query), and by each batch;
** not after every row stepped one at a time, which it would cost 5% of a
** scan's time (rows that are not a sort's output at the first seldom
** become so later: a UNION ALL whose last part is sorted).
** Only the amalgamation compiled into this translation unit shows the
** program. */
#define BRIDGE_FIXED_OPS 32
static int bridge_rest_fixed(bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  Vdbe *p = (Vdbe *)s->stmt;
  int todo[BRIDGE_FIXED_OPS], seen[BRIDGE_FIXED_OPS], ntodo = 0, nseen = 0, i, ok = 1;
  if (!s->readonly || p->explain || p->pFrame || p->eVdbeState != VDBE_RUN_STATE) return 0;
  if (s->fixed_ops == (const void *)p->aOp && s->fixed_pc == p->pc) return s->fixed;
  todo[ntodo++] = p->pc;
  while (ok && ntodo > 0) {
    int pc = todo[--ntodo], next = -1, jump = -1;
    const Op *op;
    VdbeCursor *cur;
    for (i = 0; i < nseen && seen[i] != pc; i++) {
    }
    if (i < nseen) continue;
    if (pc < 0 || pc >= p->nOp || nseen == BRIDGE_FIXED_OPS) {
      ok = 0;
      break;
    }
    seen[nseen++] = pc;
    op = &p->aOp[pc];
    cur = op->p1 >= 0 && op->p1 < p->nCursor ? p->apCsr[op->p1] : 0;
    switch (op->opcode) {
    case OP_Halt: ok = op->p1 == SQLITE_OK; break;
    case OP_Goto: jump = op->p2; break;
    case OP_SorterNext: ok = cur && cur->eCurType == CURTYPE_SORTER; next = pc + 1, jump = op->p2; break;
    case OP_SorterData: ok = cur && cur->eCurType == CURTYPE_SORTER; next = pc + 1; break;
    case OP_Next: ok = cur && cur->eCurType == CURTYPE_BTREE && cur->isEphemeral; next = pc + 1, jump = op->p2; break;
    case OP_Column:
      ok = cur && (cur->eCurType == CURTYPE_PSEUDO || (cur->eCurType == CURTYPE_BTREE && cur->isEphemeral));
      next = pc + 1;
      break;
    case OP_ResultRow: case OP_AddImm: case OP_Copy: case OP_SCopy: case OP_IntCopy: case OP_Move:
    case OP_Null: case OP_Integer: case OP_Int64: case OP_Real: case OP_String8: case OP_RealAffinity:
      next = pc + 1;
      break;
    case OP_IfPos: case OP_DecrJumpZero: case OP_IfNotZero: case OP_IsNull: case OP_NotNull: case OP_If:
    case OP_IfNot:
      next = pc + 1, jump = op->p2;
      break;
    default: ok = 0; break;
    }
    if (next >= 0 && ntodo < BRIDGE_FIXED_OPS) todo[ntodo++] = next;
    else if (next >= 0) ok = 0;
    if (jump >= 0 && ntodo < BRIDGE_FIXED_OPS) todo[ntodo++] = jump;
    else if (jump >= 0) ok = 0;
  }
  s->fixed_ops = (const void *)p->aOp;
  s->fixed_pc = p->pc;
  return s->fixed = ok;
#else
  (void)s;
  return 0;
#endif
}

static int bridge_step_row(bridge_stmt *s, uint64_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  if (bridge_arm(c, gen)) return s->rc = SQLITE_INTERRUPT;
  rc = bridge_run(s);
  if (rc == SQLITE_ROW) rc = bridge_fill(s);
  return s->rc = rc;
}

int bridge_exec(bridge_stmt *s, uint64_t gen) {
  bridge_conn *c = s->conn;
  int rc;
  sqlite3_reset(s->stmt);
  rc = bridge_bind(s);
  if (rc != SQLITE_OK) return rc;
  if (bridge_arm(c, gen)) return SQLITE_INTERRUPT;
  do {
    do {
      rc = bridge_run(s);
    } while (rc == SQLITE_ROW);
  } while (bridge_unlock_retry(c, s->stmt, &rc));
  s->changes = sqlite3_changes64(c->db);
  s->last_id = sqlite3_last_insert_rowid(c->db);
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  /* Reset now so the statement holds no lock while it waits for reuse. On error
  ** the step's code is kept: reset returns the same one. */
  sqlite3_reset(s->stmt);
  bridge_unbind_large(s);
  return rc;
}

int bridge_exec_script(bridge_conn *c, int off, int stop_at_last, uint64_t gen) {
  int rc = SQLITE_OK;
  c->prepared = 0;
  c->script_ran = 0;
  if (off < 0 || off > c->sql_len) {
    c->script_off = 0;
    return SQLITE_RANGE;
  }
  /* Offsets, not pointers: a Go function called by a step may run SQL on
  ** this connection, which sets c->sql aside and back meanwhile. */
  while (off < c->sql_len) {
    sqlite3_stmt *st = 0;
    const char *tail = 0;
    int next;
    if (bridge_arm(c, gen)) {
      rc = SQLITE_INTERRUPT;
      break;
    }
    do {
      rc = bridge_compile(c, c->sql + off, c->sql_len - off + 1, 0, &st, &tail);
    } while (bridge_unlock_retry(c, 0, &rc));
    if (rc != SQLITE_OK) break;
    next = bridge_next(c, tail);
    if (!st) {
      off = next;
      continue;
    }
    if (sqlite3_bind_parameter_count(st) > 0 || (stop_at_last && next == c->sql_len)) {
      /* Go binds (or queries) this one. */
      rc = bridge_adopt(c, st);
      c->tail = next;
      c->script_off = off;
      return rc;
    }
    do {
      do {
        rc = bridge_run_stmt(c, st);
      } while (rc == SQLITE_ROW);
    } while (bridge_unlock_retry(c, st, &rc));
    c->script_changes = sqlite3_changes64(c->db);
    c->script_last_id = sqlite3_last_insert_rowid(c->db);
    c->script_ran = 1;
    /* After a failed step, finalize returns the step's code and leaves its
    ** message for bridge_errinfo. */
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) break;
    rc = SQLITE_OK;
    off = next;
  }
  c->prepared = 0; /* not a nested operation's statement */
  c->tail = c->script_off = off;
  return rc;
}

/* Called with a row of s just stepped and filled: when nothing but a plain
** Halt (reached through Gotos at most) can run before the statement ends, it
** is the statement's last row, and whatever the caller does on the
** connection before asking for the next one cannot change that: no user
** function, virtual table or other row can run, only the Halt, which ends
** the statement (and its read transaction, in autocommit mode). So it is
** stepped to its end now, in the call that stepped the row, rather than in a
** later cgo call (the next Next, or the reset at Close): a point lookup then
** costs one call. The row's TEXT and BLOB values are copied out first, as a
** batch's are; a row with more than BRIDGE_BATCH_ROW_BYTES of them is left
** as it is. Read-only statements only (a write's RETURNING rows come before
** its commit); never for EXPLAIN, whose steps list the program instead of
** running it, nor inside a trigger's program. Only the amalgamation compiled
** into this translation unit shows the program. */
static void bridge_last_row(bridge_stmt *s) {
#ifdef BRIDGE_UNITY
  Vdbe *p = (Vdbe *)s->stmt;
  int pc = p->pc, hops, i, used = 0;
  sqlite3_int64 size = 0;
  if (!s->readonly || p->explain || p->pFrame) return;
  for (hops = 0; hops < 4 && pc >= 0 && pc < p->nOp && p->aOp[pc].opcode == OP_Goto; hops++) pc = p->aOp[pc].p2;
  if (pc < 0 || pc >= p->nOp || p->aOp[pc].opcode != OP_Halt || p->aOp[pc].p1 != SQLITE_OK) return;
  for (i = 0; i < s->ncol; i++) {
    if (s->cols[i].type == SQLITE_TEXT || s->cols[i].type == SQLITE_BLOB) size += s->cols[i].n;
  }
  if (size > BRIDGE_BATCH_ROW_BYTES) return;
  if (size && !s->text && !(s->text = (unsigned char *)malloc(BRIDGE_BATCH_TEXT))) return;
  bridge_copy_out(s, s->cols, &used);
  s->after = bridge_run(s);
#else
  (void)s;
#endif
}

int bridge_query(bridge_stmt *s, uint64_t gen, int last) {
  bridge_conn *c = s->conn;
  int rc;
  sqlite3_reset(s->stmt);
  s->after = 0;
  s->fixed_ops = 0; /* a re-prepare may put a new program where the old one was */
  s->ahead = s->readonly && bridge_may_step_ahead(c);
  rc = bridge_bind(s);
  if (rc != SQLITE_OK) return s->rc = rc;
  if (bridge_arm(c, gen)) return s->rc = SQLITE_INTERRUPT;
  do {
    rc = bridge_run(s);
  } while (bridge_unlock_retry(c, s->stmt, &rc));
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    if (sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0) != s->reprepares &&
        bridge_columns(s, s->stmt) != SQLITE_OK) {
      sqlite3_reset(s->stmt);
      return s->rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_ROW) rc = bridge_fill(s);
    if (rc == SQLITE_ROW && last) bridge_last_row(s);
    if (rc == SQLITE_ROW && !s->ahead && !s->after) s->ahead = bridge_rest_fixed(s);
  }
  return s->rc = rc;
}

int bridge_step(bridge_stmt *s, uint64_t gen) { return bridge_step_row(s, gen); }

int bridge_step_batch(bridge_stmt *s, uint64_t gen, int max) {
  bridge_conn *c = s->conn;
  int n = 0, rc, used = 0;
  if (max < 1 || s->ncol == 0) {
    s->rc = SQLITE_MISUSE;
    return 0;
  }
  if (max > s->batch_cap) {
    bridge_col *b = (bridge_col *)realloc(s->batch, (size_t)max * (size_t)s->ncol * sizeof(bridge_col));
    if (!b) {
      s->rc = SQLITE_NOMEM;
      return 0;
    }
    s->batch = b;
    s->batch_cap = max;
  }
  if (bridge_arm(c, gen)) {
    s->rc = SQLITE_INTERRUPT;
    return 0;
  }
  if (!bridge_may_step_ahead(c) && !bridge_rest_fixed(s)) max = 1;
  for (;;) {
    bridge_col *row = s->batch + (size_t)n * (size_t)s->ncol;
    sqlite3_int64 size;
    rc = bridge_run(s);
    if (rc != SQLITE_ROW) break;
    size = bridge_fill_into(s->stmt, row, s->ncol);
    if (size < 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    n++;
    if (n == max) break;
    if (size) {
      /* TEXT and BLOB values are SQLite's until the next step. A row of a few
      ** short ones is copied out, which costs less than a cgo call per row;
      ** any other row ends the batch, its values left where they are. */
      if (size > BRIDGE_BATCH_ROW_BYTES || size > BRIDGE_BATCH_TEXT - used) break;
      if (!s->text && !(s->text = (unsigned char *)malloc(BRIDGE_BATCH_TEXT))) break;
      bridge_copy_out(s, row, &used);
    }
  }
  s->rc = rc;
  return n;
}

int bridge_reset(bridge_stmt *s) {
  int rc = sqlite3_reset(s->stmt);
  bridge_unbind_large(s);
  s->rc = SQLITE_DONE;
  return rc;
}

int bridge_names(bridge_stmt *s) {
  int i;
  for (i = 0; i < s->ncol; i++) {
    s->names[i] = sqlite3_column_name(s->stmt, i);
    if (!s->names[i]) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int bridge_column_notnull(bridge_stmt *s, int i) {
  const char *db = sqlite3_column_database_name(s->stmt, i);
  const char *table = sqlite3_column_table_name(s->stmt, i);
  const char *column = sqlite3_column_origin_name(s->stmt, i);
  int notnull = 0;
  if (!db || !table || !column) return -1;
  if (sqlite3_table_column_metadata(s->conn->db, db, table, column, 0, 0, &notnull, 0, 0) != SQLITE_OK)
    return -1;
  return notnull != 0;
}

#endif /* BRIDGE_TU */
