package sqlite3

import (
	"time"
	"unsafe"
)

// SQLiteTimestampFormats are the time formats understood by both this driver
// and SQLite's date and time functions. The first is used to write time.Time
// values; when reading TEXT from a DATE, DATETIME or TIMESTAMP column the
// formats are tried in order.
var SQLiteTimestampFormats = []string{
	// By default, store timestamps with whatever timezone they come with.
	// When parsed, they will be returned with the same timezone.
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseTime reads a date/time column's TEXT. A trailing "Z" means UTC; text
// without a zone is taken as UTC. With _loc the result is shown in that
// location. Text that matches no format is not a time: the caller returns it
// as a string (mattn returns a zero time.Time and no error instead).
func parseTime(b []byte, loc *time.Location) (time.Time, bool) {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if n := len(s); n > 0 && s[n-1] == 'Z' {
		s = s[:n-1]
	}
	for _, format := range SQLiteTimestampFormats {
		if t, err := time.ParseInLocation(format, s, time.UTC); err == nil {
			if loc != nil {
				t = t.In(loc)
			}
			return t, true
		}
	}
	return time.Time{}, false
}

// unixTime reads a date/time column's INTEGER: Unix seconds, or milliseconds
// when the value is too large to be seconds (beyond about year 33658).
func unixTime(v int64, loc *time.Location) time.Time {
	var t time.Time
	if v > 1e12 || v < -1e12 {
		t = time.UnixMilli(v).UTC()
	} else {
		t = time.Unix(v, 0).UTC()
	}
	if loc != nil {
		t = t.In(loc)
	}
	return t
}
