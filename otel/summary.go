package otelsqlite

import "strings"

// querySummary is what a statement's text tells about it, for the
// db.query.summary, db.operation.name and db.collection.name attributes.
type querySummary struct {
	summary    string // operations and their targets in text order, as written: "INSERT shipping SELECT orders"
	operation  string // the statement's operation when it has only one ("SELECT"), else ""
	collection string // the table it names when it names only one, else ""
}

// Limits that keep a summary cheap and its cardinality low: the text past
// scanLimit bytes is not read (a bulk INSERT's VALUES), and a summary has at
// most maxParts words.
const (
	scanLimit = 16 << 10
	maxParts  = 16
)

// summarize reads the operations (SELECT, INSERT, UPDATE, DELETE, REPLACE,
// CREATE TABLE, PRAGMA, BEGIN, ...) and the tables they name from SQL text,
// in one pass over its tokens, without building a syntax tree: comments,
// string literals, parameters and parentheses are told apart, so a table
// named in a comment or a string is not one, and a subquery's operation is
// one more operation ("SELECT SELECT orders" for a SELECT from a subquery of
// orders). The words are kept as written (case, quotes, schema prefix), as
// the semantic conventions ask.
func summarize(sql string) querySummary {
	if len(sql) > scanLimit {
		sql = sql[:scanLimit]
	}
	var p summaryParser
	p.lex.s = sql
	p.run()
	var q querySummary
	q.summary = strings.Join(p.parts, " ")
	if p.ops == 1 {
		q.operation = p.op
	}
	if p.targets == 1 {
		q.collection = p.target
	}
	return q
}

type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokWord           // an unquoted identifier or keyword
	tokQuoted         // "name", `name` or [name]
	tokString         // 'text', and X'blob' as a word then a string
	tokNumber         // 12, 1.5e3, 0x1F
	tokParam          // ?, ?1, :name, @name, $name
	tokPunct          // any other single character: ( ) , . ; = ...
)

type token struct {
	kind       tokKind
	start, end int
}

// lexer splits SQL text into tokens, skipping white space and comments.
type lexer struct {
	s string
	i int
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func (l *lexer) next() token {
	s := l.s
	for l.i < len(s) {
		c := s[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.i++
			continue
		case c == '-' && l.i+1 < len(s) && s[l.i+1] == '-':
			if j := strings.IndexByte(s[l.i:], '\n'); j >= 0 {
				l.i += j + 1
			} else {
				l.i = len(s)
			}
			continue
		case c == '/' && l.i+1 < len(s) && s[l.i+1] == '*':
			if j := strings.Index(s[l.i+2:], "*/"); j >= 0 {
				l.i += j + 4
			} else {
				l.i = len(s)
			}
			continue
		}
		start := l.i
		switch {
		case isIdentStart(c):
			l.i++
			for l.i < len(s) && isIdentPart(s[l.i]) {
				l.i++
			}
			return token{tokWord, start, l.i}
		case c == '\'':
			l.skipQuoted('\'')
			return token{tokString, start, l.i}
		case c == '"' || c == '`':
			l.skipQuoted(c)
			return token{tokQuoted, start, l.i}
		case c == '[':
			if j := strings.IndexByte(s[l.i:], ']'); j >= 0 {
				l.i += j + 1
			} else {
				l.i = len(s)
			}
			return token{tokQuoted, start, l.i}
		case c >= '0' && c <= '9' || c == '.' && l.i+1 < len(s) && s[l.i+1] >= '0' && s[l.i+1] <= '9':
			l.i++
			for l.i < len(s) && (isIdentPart(s[l.i]) || s[l.i] == '.' ||
				(s[l.i] == '+' || s[l.i] == '-') && (s[l.i-1] == 'e' || s[l.i-1] == 'E')) {
				l.i++
			}
			return token{tokNumber, start, l.i}
		case c == '?' || c == ':' || c == '@' || c == '$':
			l.i++
			for l.i < len(s) && isIdentPart(s[l.i]) {
				l.i++
			}
			return token{tokParam, start, l.i}
		}
		l.i++
		return token{tokPunct, start, l.i}
	}
	return token{kind: tokEOF, start: len(s), end: len(s)}
}

// skipQuoted moves past a quoted string or identifier, whose quote is
// escaped by doubling it.
func (l *lexer) skipQuoted(q byte) {
	s := l.s
	l.i++
	for l.i < len(s) {
		if s[l.i] == q {
			if l.i+1 < len(s) && s[l.i+1] == q {
				l.i += 2
				continue
			}
			l.i++
			return
		}
		l.i++
	}
}

// What the parser expects at one depth of parentheses.
type expect uint8

const (
	expectNothing  expect = iota
	expectList            // a table of a FROM or JOIN list (or a subquery)
	expectAfterRef        // past a FROM list's table: an alias, a comma, or the list ends
	expectOne             // the one table of INSERT INTO or UPDATE
)

const maxDepth = 32

type summaryParser struct {
	lex     lexer
	tok     token
	peeked  *token
	parts   []string
	ops     int
	op      string
	targets int
	target  string

	depth     int
	at        [maxDepth]expect
	stmtStart bool // the next token begins a statement
	inWith    bool // the statement began with WITH: its own operation comes at depth 0
	lastOp    string
}

func (p *summaryParser) text(t token) string { return p.lex.s[t.start:t.end] }

func (p *summaryParser) advance() token {
	if p.peeked != nil {
		p.tok, p.peeked = *p.peeked, nil
	} else {
		p.tok = p.lex.next()
	}
	return p.tok
}

func (p *summaryParser) peek() token {
	if p.peeked == nil {
		t := p.lex.next()
		p.peeked = &t
	}
	return *p.peeked
}

func (p *summaryParser) is(t token, word string) bool {
	return t.kind == tokWord && strings.EqualFold(p.text(t), word)
}

func (p *summaryParser) addOp(op string) {
	p.ops++
	p.op = op
	p.lastOp = op
	p.add(op)
}

func (p *summaryParser) addTarget(name string) {
	p.targets++
	p.target = name
	p.add(name)
}

func (p *summaryParser) add(word string) {
	if len(p.parts) < maxParts {
		p.parts = append(p.parts, word)
	}
}

// name reads a table name that starts at t, schema prefix included
// ("main.t", "\"my table\""), and returns it as written.
func (p *summaryParser) name(t token) string {
	start, end := t.start, t.end
	for {
		dot := p.peek()
		if dot.kind != tokPunct || p.lex.s[dot.start] != '.' {
			break
		}
		p.advance()
		n := p.peek()
		if n.kind != tokWord && n.kind != tokQuoted {
			break
		}
		p.advance()
		end = n.end
	}
	return p.lex.s[start:end]
}

func (p *summaryParser) run() {
	p.stmtStart = true
	for {
		t := p.advance()
		if t.kind == tokEOF {
			return
		}
		start := p.stmtStart
		p.stmtStart = false
		if !p.token(t, start) {
			return
		}
	}
}

// token handles one token; false stops the parse.
func (p *summaryParser) token(t token, start bool) bool {
	d := p.depth
	switch t.kind {
	case tokPunct:
		switch p.lex.s[t.start] {
		case '(':
			if p.at[d] == expectList {
				p.at[d] = expectAfterRef // a subquery, or a table-valued function's arguments
			}
			if p.depth+1 < maxDepth {
				p.depth++
				p.at[p.depth] = expectNothing
			}
			return true
		case ')':
			p.at[d] = expectNothing
			if p.depth > 0 {
				p.depth--
			}
			return true
		case ',':
			if p.at[d] == expectAfterRef {
				p.at[d] = expectList
			}
			return true
		case ';':
			if d == 0 {
				p.newStatement()
			}
			return true
		}
		p.at[d] = expectNothing
		return true
	case tokQuoted:
		switch p.at[d] {
		case expectList, expectOne:
			p.addTarget(p.name(t))
			p.afterRef(d)
		}
		return true // else an alias, or nothing to note
	case tokWord:
	default:
		if p.at[d] != expectAfterRef || t.kind != tokString {
			p.at[d] = expectNothing
		}
		return true
	}

	w := p.text(t)
	switch p.at[d] {
	case expectList, expectOne:
		if strings.EqualFold(w, "OR") && p.at[d] == expectOne { // UPDATE OR REPLACE t
			p.advance()
			return true
		}
		if !strings.EqualFold(w, "SELECT") && !strings.EqualFold(w, "VALUES") {
			p.addTarget(p.name(t))
			p.afterRef(d)
			return true
		}
		p.at[d] = expectNothing
	case expectAfterRef:
		if strings.EqualFold(w, "AS") {
			p.advance() // the alias
			return true
		}
		if !endsRef(w) {
			return true // an alias
		}
		p.at[d] = expectNothing
	}

	switch {
	case strings.EqualFold(w, "SELECT"):
		p.addOp(w)
	case strings.EqualFold(w, "FROM"), strings.EqualFold(w, "JOIN"):
		p.at[d] = expectList
	case strings.EqualFold(w, "INTO"):
		if strings.EqualFold(p.lastOp, "INSERT") || strings.EqualFold(p.lastOp, "REPLACE") {
			p.at[d] = expectOne
		}
	case strings.EqualFold(w, "INSERT"), strings.EqualFold(w, "REPLACE"), strings.EqualFold(w, "DELETE"):
		if start || p.inWith && d == 0 {
			p.addOp(w)
		}
	case strings.EqualFold(w, "UPDATE"):
		if start || p.inWith && d == 0 {
			p.addOp(w)
			p.at[d] = expectOne
		}
	case !start:
	case strings.EqualFold(w, "WITH"):
		p.inWith = true
		if p.is(p.peek(), "RECURSIVE") {
			p.advance()
		}
	case strings.EqualFold(w, "EXPLAIN"):
		p.addOp(w)
		if p.is(p.peek(), "QUERY") {
			p.advance()
			if p.is(p.peek(), "PLAN") {
				p.advance()
			}
		}
		p.stmtStart = true
	case strings.EqualFold(w, "CREATE"), strings.EqualFold(w, "DROP"), strings.EqualFold(w, "ALTER"):
		return p.ddl(t)
	case strings.EqualFold(w, "PRAGMA"):
		p.addOp(w)
		if n := p.peek(); n.kind == tokWord || n.kind == tokQuoted {
			p.advance()
			p.add(p.name(n)) // the pragma's name: a target, not a table
		}
		p.skipStatement()
	case isStatementOp(w):
		p.addOp(w)
		p.skipStatement()
	}
	return true
}

// afterRef follows a table named at depth d.
func (p *summaryParser) afterRef(d int) {
	if p.at[d] == expectList {
		p.at[d] = expectAfterRef
	} else {
		p.at[d] = expectNothing
	}
}

// ddl reads CREATE, DROP or ALTER, the kind of object and its name:
// "CREATE TABLE t", "DROP INDEX i". Only a table is a collection.
func (p *summaryParser) ddl(verb token) bool {
	kind := token{}
	for {
		t := p.peek()
		if t.kind != tokWord {
			break
		}
		p.advance()
		w := p.text(t)
		if strings.EqualFold(w, "TEMP") || strings.EqualFold(w, "TEMPORARY") || strings.EqualFold(w, "UNIQUE") || strings.EqualFold(w, "VIRTUAL") {
			continue
		}
		kind = t
		break
	}
	if kind.kind == tokEOF {
		p.addOp(p.text(verb))
		p.skipStatement()
		return true
	}
	p.addOp(p.text(verb) + " " + p.text(kind))
	if p.is(p.peek(), "IF") {
		p.advance()
		if p.is(p.peek(), "NOT") {
			p.advance()
		}
		if p.is(p.peek(), "EXISTS") {
			p.advance()
		}
	}
	if n := p.peek(); n.kind == tokWord || n.kind == tokQuoted {
		p.advance()
		name := p.name(n)
		if p.is(kind, "TABLE") {
			p.addTarget(name)
		} else {
			p.add(name)
		}
	}
	if p.is(kind, "TRIGGER") {
		return false // its body's statements are not this one's
	}
	p.skipStatement()
	return true
}

// skipStatement moves past the rest of the statement.
func (p *summaryParser) skipStatement() {
	depth := 0
	for {
		t := p.advance()
		switch {
		case t.kind == tokEOF:
			return
		case t.kind != tokPunct:
		case p.lex.s[t.start] == '(':
			depth++
		case p.lex.s[t.start] == ')':
			depth--
		case p.lex.s[t.start] == ';' && depth <= 0:
			p.newStatement()
			return
		}
	}
}

func (p *summaryParser) newStatement() {
	p.depth = 0
	p.at = [maxDepth]expect{}
	p.stmtStart = true
	p.inWith = false
	p.lastOp = ""
}

// isStatementOp reports whether w is an operation that makes a statement of
// its own, with no table to name.
func isStatementOp(w string) bool {
	for _, op := range [...]string{"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE",
		"VACUUM", "ANALYZE", "REINDEX", "ATTACH", "DETACH"} {
		if strings.EqualFold(w, op) {
			return true
		}
	}
	return false
}

// endsRef reports whether w, past a table of a FROM list, is a keyword
// rather than the table's alias.
func endsRef(w string) bool {
	for _, k := range [...]string{"WHERE", "GROUP", "ORDER", "LIMIT", "JOIN", "LEFT", "RIGHT", "FULL",
		"INNER", "OUTER", "CROSS", "NATURAL", "ON", "USING", "INDEXED", "NOT", "UNION", "EXCEPT",
		"INTERSECT", "WINDOW", "HAVING", "RETURNING", "SET", "VALUES", "DEFAULT", "SELECT", "FROM",
		"AS", "WHEN", "THEN", "ELSE", "END", "AND", "OR", "OFFSET", "DO"} {
		if strings.EqualFold(w, k) {
			return true
		}
	}
	return false
}
