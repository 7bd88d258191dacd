/*
** bridge_stmt.c: preparing statements. The connection's copy of the SQL, the
** prepare itself (counted in depth, so that SQL a callback runs meanwhile is
** known to be nested), the description of a statement's columns, whether it
** takes the main database's write lock, and finalize.
*/
#ifdef BRIDGE_TU /* compiled only inside bridge.c (see there) */

/* Classifies a declared type the way mattn/go-sqlite3 does: an exact,
** case-insensitive match of the whole declared type. */
static unsigned char bridge_class(const char *decl) {
  if (!decl) return BRIDGE_CLASS_NONE;
  if (sqlite3_stricmp(decl, "timestamp") == 0 || sqlite3_stricmp(decl, "datetime") == 0 ||
      sqlite3_stricmp(decl, "date") == 0)
    return BRIDGE_CLASS_TIME;
  if (sqlite3_stricmp(decl, "boolean") == 0) return BRIDGE_CLASS_BOOL;
  return BRIDGE_CLASS_NONE;
}

/* (Re)describes the columns of st: count, row buffer, classes. */
static int bridge_columns(bridge_stmt *s, sqlite3_stmt *st) {
  int i, ncol = sqlite3_column_count(st);
  size_t size = (size_t)ncol * (sizeof(bridge_col) + sizeof(const char *) + 1);
  void *block = size ? calloc(1, size) : 0;
  if (size && !block) return SQLITE_NOMEM;
  free(s->cols);
  free(s->batch);
  s->batch = 0;
  s->batch_cap = 0;
  s->ncol = ncol;
  s->cols = (bridge_col *)block;
  s->names = (const char **)(s->cols + ncol);
  s->classes = (unsigned char *)(s->names + ncol);
  for (i = 0; i < ncol; i++) s->classes[i] = bridge_class(sqlite3_column_decltype(st, i));
  s->reprepares = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_REPREPARE, 0);
  s->shape++;
  return SQLITE_OK;
}

/* Whether s[0:n] holds no statement: only spaces, semicolons and comments
** (SQLite accepts an unterminated block comment at the end). Spaces are the
** tokenizer's: a run of them starts with one of " \t\n\f\r" and goes on
** with any isspace byte, so a vertical tab (0x0B) that starts a token (after
** a semicolon or a block comment, or first) is illegal, an error SQLite must
** report. */
static int bridge_only_trivia(const char *s, int n) {
  int i = 0, space = 0;
  while (i < n) {
    char ch = s[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || (ch == '\v' && space)) {
      space = 1;
      i++;
    } else if (ch == ';') {
      space = 0;
      i++;
    } else if (ch == '-' && i + 1 < n && s[i + 1] == '-') {
      /* The comment ends before its newline, which starts a run of spaces. */
      const char *nl = (const char *)memchr(s + i, '\n', (size_t)(n - i));
      if (!nl) return 1;
      space = 0;
      i = (int)(nl - s);
    } else if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
      int j = i + 2;
      while (j + 1 < n && !(s[j] == '*' && s[j + 1] == '/')) j++;
      if (j + 1 >= n) return 1;
      space = 0;
      i = j + 2;
    } else {
      return 0;
    }
  }
  return 1;
}

/* The offset of the SQL after a statement prepared from byte off, whose
** tail SQLite returned: the end of the buffer when only trivia is left, so
** that Go tells the last statement by tail == length alone. */
static int bridge_next(bridge_conn *c, const char *tail) {
  int next = tail ? (int)(tail - c->sql) : c->sql_len;
  if (next > c->sql_len || bridge_only_trivia(c->sql + next, c->sql_len - next)) next = c->sql_len;
  return next;
}

/* Whether running st takes the main database's write lock, read from its
** compiled program: a write transaction on schema 0 (OP_Transaction with
** p1 = 0 and a write flag in p2), or VACUUM of main in place (OP_Vacuum on
** schema 0 without an INTO register). This is what the write turn follows
** (gate.go): a statement that sqlite3_stmt_readonly calls a writer may write
** only TEMP or an attached file, change the journal mode, checkpoint or
** VACUUM INTO another file; those take the main file's write lock, if at
** all, by themselves, and wait for it in bridge_share_queue.c's queue. Only the
** amalgamation compiled into this translation unit shows the program:
** against another SQLite every writer counts. */
static int bridge_writes_main(sqlite3_stmt *st) {
  if (sqlite3_stmt_readonly(st)) return 0;
#ifdef BRIDGE_UNITY
  {
    Vdbe *v = (Vdbe *)st;
    int i, writes = 0, group = 1;
    if (v->explain) return 0;
    for (i = 0; i < v->nOp; i++) {
      const VdbeOp *op = &v->aOp[i];
      switch (op->opcode) {
      case OP_Transaction:
        if (op->p1 == 0 && op->p2 != 0) writes = 1;
        if (op->p1 != 0) group = 0; /* TEMP or an attached file: this connection's own */
        break;
      case OP_Vacuum:
        if (op->p1 == 0 && op->p2 == 0) return 1;
        group = 0;
        break;
      /* What cannot run inside another transaction, or is about this
      ** connection's own transaction, never joins a group (group.go). */
      case OP_AutoCommit:
      case OP_Savepoint:
      case OP_JournalMode:
      case OP_Checkpoint:
        group = 0;
        break;
      }
    }
    return writes ? (group ? BRIDGE_WRITES_GROUPABLE : 1) : 0;
  }
#else
  return 1;
#endif
}

/* Wraps st in a new bridge_stmt, the connection's c->prepared. */
static int bridge_adopt(bridge_conn *c, sqlite3_stmt *st) {
  bridge_stmt *s = (bridge_stmt *)calloc(1, sizeof(bridge_stmt));
  if (!s || bridge_columns(s, st) != SQLITE_OK) {
    free(s);
    sqlite3_finalize(st);
    return SQLITE_NOMEM;
  }
  s->stmt = st;
  s->conn = c;
  s->nparam = sqlite3_bind_parameter_count(st);
  s->readonly = sqlite3_stmt_readonly(st);
  s->writes_main = bridge_writes_main(st);
  s->ahead = s->readonly && bridge_may_step_ahead(c);
  s->rc = SQLITE_DONE;
  s->next = c->stmts;
  if (c->stmts) c->stmts->prev = s;
  c->stmts = s;
  c->prepared = s;
  return SQLITE_OK;
}

/* Each thread's mark: the address of a thread-local, unique among live threads. */
static _Thread_local char bridge_thread;

bridge_word *bridge_word_new(void) { return (bridge_word *)calloc(1, sizeof(bridge_word)); }

/* Counts a step or prepare in or out. Only the thread holding the connection
** writes the marks; thread is stored before depth (release), so a thread that
** reads depth > 0 (acquire) reads the thread of a step in progress. A thread
** that finds its own mark there is that step's callback: a thread runs one
** thing at a time, and Go keeps a callback's goroutine on the thread that
** called into C. */
static void bridge_depth(bridge_conn *c, int d) {
  c->depth += d;
  if (d > 0 ? c->depth == 2 : c->depth == 1) bridge_checkpoint_nest(c, d > 0); /* SQL inside a step */
  if (d > 0) __atomic_store_n(&c->word->thread, (const void *)&bridge_thread, __ATOMIC_RELAXED);
  __atomic_store_n(&c->word->depth, c->depth, __ATOMIC_RELEASE);
}

int bridge_nested_here(bridge_word *w) {
  return __atomic_load_n(&w->depth, __ATOMIC_ACQUIRE) > 0 &&
         __atomic_load_n(&w->thread, __ATOMIC_RELAXED) == (const void *)&bridge_thread;
}

/* sqlite3_prepare_v3, counted in depth as a step is (bridge_run_stmt): the
** callbacks SQLite makes while it compiles (an authorizer, a busy handler, a
** virtual table's xConnect or xBestIndex) run inside it, and SQL they run on
** the connection must set aside the SQL buffer being parsed in place and put
** the outer operation's arming back (Go's SQLiteConn.nest, nestedArming). */
static int bridge_compile(bridge_conn *c, const char *sql, int n, unsigned int flags, sqlite3_stmt **st,
                          const char **tail) {
  int rc;
  bridge_depth(c, 1);
  rc = sqlite3_prepare_v3(c->db, sql, n, flags, st, tail);
  bridge_depth(c, -1);
  return rc;
}

int bridge_prepare(bridge_conn *c, const char *sql, int n, unsigned int flags, uint64_t gen) {
  sqlite3_stmt *st = 0;
  const char *tail = 0;
  int rc;

  c->prepared = 0;
  c->tail = 0;
  if (n + 1 > c->sql_cap || (c->sql_cap > (1 << 20) && n + 1 < c->sql_cap / 4)) {
    /* Grow to fit; shrink a very large buffer once queries are small again. */
    char *p = (char *)realloc(c->sql, (size_t)n + 1);
    if (!p) return SQLITE_NOMEM;
    c->sql = p;
    c->sql_cap = n + 1;
  }
  memcpy(c->sql, sql, (size_t)n);
  c->sql[n] = 0;
  c->sql_len = n;
  if (bridge_arm(c, gen)) return SQLITE_INTERRUPT;
  c->refused_by.kind = 0;
  c->refused_excl = 0;
  /* nByte includes the terminator: SQLite then parses in place, without a copy. */
  do {
    rc = bridge_compile(c, c->sql, c->sql_len + 1, flags, &st, &tail);
  } while (bridge_unlock_retry(c, 0, &rc));
  if (rc != SQLITE_OK) return rc;
  c->tail = bridge_next(c, tail);
  if (!st) return SQLITE_OK;
  return bridge_adopt(c, st);
}

int bridge_prepare_again(bridge_stmt *s) {
  bridge_conn *c = s->conn;
  sqlite3_stmt *st = 0;
  int rc;
  c->prepared = 0;
  /* sqlite3_sql is NUL-terminated: SQLite parses it in place. */
  rc = bridge_compile(c, sqlite3_sql(s->stmt), -1, 0, &st, 0);
  if (rc != SQLITE_OK) return rc;
  if (!st) return SQLITE_MISUSE;
  return bridge_adopt(c, st);
}

void bridge_finalize(bridge_stmt *s) {
  bridge_conn *c = s->conn;
  c->reprepared += sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0);
  if (s->prev) s->prev->next = s->next;
  else c->stmts = s->next;
  if (s->next) s->next->prev = s->prev;
  bridge_free_stmt(s);
}

sqlite3_int64 bridge_reprepares(bridge_conn *c) {
  sqlite3_int64 n = c->reprepared;
  const bridge_stmt *s;
  for (s = c->stmts; s; s = s->next) n += sqlite3_stmt_status(s->stmt, SQLITE_STMTSTATUS_REPREPARE, 0);
  return n;
}

#endif /* BRIDGE_TU */
