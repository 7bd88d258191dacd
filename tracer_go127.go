//go:build go1.27 && cgo

package sqlite3

// NextRow counts the row for the query's TraceEvent, as Next does.
func (r *tracedRows) NextRow() error {
	err := r.SQLiteRows.NextRow()
	if err == nil {
		r.counted()
	}
	return err
}
