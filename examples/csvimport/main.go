// Command csvimport loads a CSV file into an SQLite table the fast way: one
// transaction around the whole import, one prepared INSERT executed for every
// record, and a progress line while it runs. The first record names the
// columns. Without a file argument it generates a sample CSV first.
//
//	go run ./examples/csvimport                          # generate 200000 rows, import them
//	go run ./examples/csvimport -db out.db -table people people.csv
//
// A single transaction matters most: without it every INSERT is a transaction
// of its own, with its own journal write and sync.
package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/fastsqlite/sqlite3"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("csvimport", flag.ContinueOnError)
	dbPath := fs.String("db", "", "database file (default: a new file in a temporary directory)")
	table := fs.String("table", "data", "table to create and fill")
	rows := fs.Int("rows", 200000, "records to generate when no CSV file is given")
	every := fs.Int("progress", 10000, "update the progress line every this many records")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: csvimport [flags] [file.csv]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return errors.New("at most one CSV file")
	}

	var tmp string
	if *dbPath == "" || fs.NArg() == 0 {
		dir, err := os.MkdirTemp("", "csvimport")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		tmp = dir
	}
	if *dbPath == "" {
		*dbPath = filepath.Join(tmp, "import.db")
	}
	csvPath := fs.Arg(0)
	if csvPath == "" {
		csvPath = filepath.Join(tmp, "sample.csv")
		if err := generateCSV(csvPath, *rows); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "generated %s with %d records\n", csvPath, *rows)
	}

	f, err := os.Open(csvPath)
	if err != nil {
		return err
	}
	defer f.Close()

	db, err := sql.Open("sqlite3", *dbPath+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1")
	if err != nil {
		return err
	}
	defer db.Close()

	start := time.Now()
	n, err := importCSV(ctx, db, *table, csv.NewReader(f), *every, func(n int) {
		elapsed := time.Since(start).Seconds()
		fmt.Fprintf(stdout, "\rimported %d records (%.0f records/s)", n, float64(n)/elapsed)
	})
	if err != nil {
		fmt.Fprintln(stdout)
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "\rimported %d records into table %q of %s in %v (%.0f records/s)\n",
		n, *table, *dbPath, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())

	var count int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+quoteIdent(*table)).Scan(&count); err != nil {
		return err
	}
	if count != n {
		return fmt.Errorf("table has %d rows, imported %d", count, n)
	}
	return nil
}

// importCSV creates table with the columns named by the first record and
// inserts every other record, all in one transaction, calling progress every
// `every` records. It returns the number of records inserted; on any error
// nothing is inserted.
func importCSV(ctx context.Context, db *sql.DB, table string, r *csv.Reader, every int, progress func(int)) (n int, err error) {
	header, err := r.Read()
	if err != nil {
		return 0, fmt.Errorf("reading the header: %w", err)
	}
	r.ReuseRecord = true
	cols := make([]string, len(header))
	marks := make([]string, len(header))
	for i, h := range header {
		cols[i] = quoteIdent(strings.TrimSpace(h))
		marks[i] = "?"
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	// Columns without a declared type keep what they are given; the values
	// here are all strings, as CSV has no types. Declare types (and convert
	// the values) when the data has them.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE %s (%s)`,
		quoteIdent(table), strings.Join(cols, ", "))); err != nil {
		return 0, err
	}
	ins, err := tx.PrepareContext(ctx, fmt.Sprintf(`INSERT INTO %s (%s) VALUES (%s)`,
		quoteIdent(table), strings.Join(cols, ", "), strings.Join(marks, ", ")))
	if err != nil {
		return 0, err
	}
	defer ins.Close()

	args := make([]any, len(header))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		for i := range rec {
			args[i] = rec[i]
		}
		if _, err := ins.ExecContext(ctx, args...); err != nil {
			line, _ := r.FieldPos(0)
			return 0, fmt.Errorf("line %d: %w", line, err)
		}
		n++
		if every > 0 && n%every == 0 {
			progress(n)
		}
	}
	return n, tx.Commit()
}

// quoteIdent quotes an SQL identifier (a table or column name from the CSV).
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// generateCSV writes n sample records, with the quoting CSV needs for commas
// and quotes inside fields.
func generateCSV(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"id", "name", "email", "city", "score", "joined"})
	cities := []string{"Lisbon", "Paris, TX", `"Little" Rock`, "Zürich", "Kyoto"}
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		w.Write([]string{
			fmt.Sprint(i),
			fmt.Sprintf("user %d", i),
			fmt.Sprintf("user%d@example.com", i),
			cities[i%len(cities)],
			fmt.Sprintf("%.2f", float64(i%1000)/10),
			day.AddDate(0, 0, i%2000).Format(time.DateOnly),
		})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}
