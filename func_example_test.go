//go:build cgo

package sqlite3

import (
	"database/sql"
	"fmt"
	"math"
	"strings"
)

// Register Go functions on every connection of a sql.DB with a ConnectHook.
func ExampleSQLiteConn_RegisterFunc() {
	connector, err := (&SQLiteDriver{
		ConnectHook: func(c *SQLiteConn) error {
			// pure: the result depends only on the arguments, so SQLite may
			// use the function in indexes and fold constant calls.
			if err := c.RegisterFunc("reverse", func(s string) string {
				r := []rune(s)
				for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
					r[i], r[j] = r[j], r[i]
				}
				return string(r)
			}, true); err != nil {
				return err
			}
			// Variadic, with an error result that fails the statement.
			return c.RegisterFunc("glue", func(sep string, parts ...string) (string, error) {
				if len(parts) == 0 {
					return "", fmt.Errorf("glue: nothing to join")
				}
				return strings.Join(parts, sep), nil
			}, true)
		},
	}).OpenConnector(":memory:")
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	var s string
	if err := db.QueryRow(`SELECT glue('-', reverse('olleh'), 'world', ?)`, "again").Scan(&s); err != nil {
		panic(err)
	}
	fmt.Println(s)
	_, err = db.Exec(`SELECT glue(',')`)
	fmt.Println(err)
	// Output:
	// hello-world-again
	// glue: nothing to join
}

// stddev is an aggregate: a new value per group, Step per row, Done at the
// end. With Inverse and Value it is also a window function.
type stddev struct {
	n       int
	sum, sq float64
}

func (s *stddev) Step(x float64)    { s.n++; s.sum += x; s.sq += x * x }
func (s *stddev) Inverse(x float64) { s.n--; s.sum -= x; s.sq -= x * x }

func (s *stddev) Value() (float64, error) {
	if s.n < 2 {
		return 0, fmt.Errorf("stddev needs 2 values, has %d", s.n)
	}
	mean := s.sum / float64(s.n)
	return math.Sqrt((s.sq - float64(s.n)*mean*mean) / float64(s.n-1)), nil
}

func (s *stddev) Done() (float64, error) { return s.Value() }

func ExampleSQLiteConn_RegisterAggregator() {
	connector, err := (&SQLiteDriver{
		ConnectHook: func(c *SQLiteConn) error {
			return c.RegisterAggregator("stddev", func() *stddev { return &stddev{} }, true)
		},
	}).OpenConnector(":memory:")
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1) // one in-memory database

	if _, err := db.Exec(`CREATE TABLE temps (day INTEGER, celsius REAL);
		INSERT INTO temps VALUES (1, 20), (2, 22), (3, 27), (4, 21), (5, 19)`); err != nil {
		panic(err)
	}
	var all float64
	if err := db.QueryRow(`SELECT stddev(celsius) FROM temps`).Scan(&all); err != nil {
		panic(err)
	}
	fmt.Printf("stddev: %.2f\n", all)

	// As a window function: over the day before, the day and the day after.
	rows, err := db.Query(`SELECT day, stddev(celsius) OVER (ORDER BY day ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
		FROM temps ORDER BY day`)
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var day int
		var sd float64
		if err := rows.Scan(&day, &sd); err != nil {
			panic(err)
		}
		fmt.Printf("day %d: %.2f\n", day, sd)
	}
	if err := rows.Err(); err != nil {
		panic(err)
	}
	// Output:
	// stddev: 3.11
	// day 1: 1.41
	// day 2: 3.61
	// day 3: 3.21
	// day 4: 4.16
	// day 5: 1.41
}

func ExampleSQLiteConn_RegisterCollation() {
	connector, err := (&SQLiteDriver{
		ConnectHook: func(c *SQLiteConn) error {
			// Case-insensitive, then by length.
			return c.RegisterCollation("nocase_len", func(a, b string) int {
				if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
					return c
				}
				return len(a) - len(b)
			})
		},
	}).OpenConnector(":memory:")
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	rows, err := db.Query(`SELECT column1 FROM (VALUES ('b'), ('A'), ('a'), ('B')) ORDER BY column1 COLLATE nocase_len, column1`)
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			panic(err)
		}
		out = append(out, s)
	}
	fmt.Println(strings.Join(out, " "))
	// Output: A a B b
}
