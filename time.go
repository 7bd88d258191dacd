package sqlite3

import (
	"time"
	"unsafe"
)

// SQLiteTimestampFormats lists the layouts (in Go's time.Layout notation)
// that the driver and SQLite's date and time functions both accept. A
// time.Time argument is written as text in the layout at index 0; TEXT read
// from a column declared DATE, DATETIME or TIMESTAMP is matched against each
// layout in turn, and the first that parses it wins.
var SQLiteTimestampFormats = []string{
	// A time.Time is written in its own UTC offset, not converted to UTC, and
	// comes back with that offset (as a fixed zone) unless _loc is set.
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
// location. Text that matches no format gives false and the zero time.Time
// (in loc when set), which the caller returns as mattn/go-sqlite3 does, or,
// with _strict, returns the text as a string instead.
func parseTime(b []byte, loc *time.Location) (time.Time, bool) {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if n := len(s); n > 0 && s[n-1] == 'Z' {
		s = s[:n-1]
	}
	if defaultFormats() {
		if t, ok := parseDefaultFormats(s); ok {
			if loc != nil {
				t = t.In(loc)
			}
			return t, true
		}
	}
	for _, format := range SQLiteTimestampFormats {
		if t, err := time.ParseInLocation(format, s, time.UTC); err == nil {
			if loc != nil {
				t = t.In(loc)
			}
			return t, true
		}
	}
	if loc != nil {
		return time.Time{}.In(loc), false
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

// builtinFormats is SQLiteTimestampFormats as shipped.
var builtinFormats = append([]string(nil), SQLiteTimestampFormats...)

// defaultFormats reports whether SQLiteTimestampFormats still holds the
// shipped formats, which parseDefaultFormats implements without time.Parse.
// It runs for every timestamp read, so it compares the strings' addresses
// rather than their bytes: a format replaced by an equal copy only costs the
// slow path, never a wrong parse.
func defaultFormats() bool {
	if len(SQLiteTimestampFormats) != len(builtinFormats) {
		return false
	}
	for i, f := range builtinFormats {
		g := SQLiteTimestampFormats[i]
		if unsafe.StringData(g) != unsafe.StringData(f) || len(g) != len(f) {
			return false
		}
	}
	return true
}

// parseDefaultFormats parses what the shipped SQLiteTimestampFormats accept,
// as time.ParseInLocation(format, s, time.UTC) would with the first format
// that matches: "YYYY-MM-DD", then optionally [ T]"HH:MM", ":SS", a fraction
// of a second, and a "±HH:MM" offset. Anything else reports false, and the
// caller tries the formats one by one.
func parseDefaultFormats(s string) (time.Time, bool) {
	// Fields sit at fixed positions: each is read as digit pairs, validated
	// all at once (a byte below '0' wraps around, so one comparison per digit).
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	y1, ok1 := pair(s, 0)
	y2, ok2 := pair(s, 2)
	month, ok3 := pair(s, 5)
	day, ok4 := pair(s, 8)
	year := y1*100 + y2
	if !(ok1 && ok2 && ok3 && ok4) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	s = s[10:]
	var hour, minute, sec, nsec, offset int
	var zone *time.Location // nil: UTC
	if len(s) > 0 {
		if len(s) < 6 || (s[0] != ' ' && s[0] != 'T') || s[3] != ':' {
			return time.Time{}, false
		}
		var ok1, ok2 bool
		hour, ok1 = pair(s, 1)
		minute, ok2 = pair(s, 4)
		if !ok1 || !ok2 || hour > 23 || minute > 59 {
			return time.Time{}, false
		}
		s = s[6:]
		hasSeconds := false
		if len(s) >= 3 && s[0] == ':' {
			var ok bool
			if sec, ok = pair(s, 1); !ok || sec > 59 {
				return time.Time{}, false
			}
			s = s[3:]
			hasSeconds = true
		}
		if hasSeconds && len(s) >= 2 && (s[0] == '.' || s[0] == ',') && isDigit(s[1]) {
			i := 1
			for ; i < len(s); i++ {
				d := int(s[i]) - '0'
				if uint(d) > 9 {
					break
				}
				if i <= 9 { // digits past the ninth are dropped, as time.Parse does
					nsec = nsec*10 + d
				}
			}
			nsec *= nsecScale[min(i-1, 9)]
			s = s[i:]
		}
		if len(s) > 0 {
			// "-07:00" only follows seconds in the shipped formats.
			if !hasSeconds || len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
				return time.Time{}, false
			}
			zh, ok1 := pair(s, 1)
			zm, ok2 := pair(s, 4)
			if !ok1 || !ok2 || zh > 24 || zm > 60 {
				return time.Time{}, false
			}
			offset = zh*3600 + zm*60
			if s[0] == '-' {
				offset = -offset
			}
			if offset != 0 {
				zone = time.FixedZone("", offset)
			}
		}
	}
	// time.Date would normalize and look the zone up again; every field is
	// already in range, so the instant is computed directly.
	unix := civilDays(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	t := time.Unix(unix, int64(nsec))
	if zone == nil {
		return t.UTC(), true
	}
	return t.In(zone), true
}

// nsecScale[n] turns n digits of a fraction of a second into nanoseconds.
var nsecScale = [10]int{0, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// pair reads the two ASCII digits at s[i:i+2]; the caller has checked that
// they are in s.
func pair(s string, i int) (int, bool) {
	a, b := s[i]-'0', s[i+1]-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

// daysIn is the length of month m (1-12) of the proleptic Gregorian year.
func daysIn(m, year int) int {
	if m == 2 {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + (m+m>>3)&1 // 31 for January, March, May, July, August, October, December
}

// civilDays is the number of days from 1970-01-01 to the given date of the
// proleptic Gregorian calendar (negative before it), by Howard Hinnant's
// days-from-civil method: years are counted from March, so that the leap day
// ends a year, in 400-year eras of 146,097 days.
func civilDays(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400                     // year of the era, 0-399
	mp := int64(month+9) % 12              // months since March, 0-11
	doy := (153*mp+2)/5 + int64(day) - 1   // day of the year, 0-365
	doe := yoe*365 + yoe/4 - yoe/100 + doy // day of the era, 0-146096
	return era*146097 + doe - 719468       // 719,468 days from 0000-03-01 to 1970-01-01
}
