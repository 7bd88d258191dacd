package sqlite3

import (
	"testing"
	"time"
)

// The fast parser must agree with time.ParseInLocation over the shipped
// formats on every input: same instant, same offset, or both reject.
func TestParseDefaultFormatsMatchesTimeParse(t *testing.T) {
	inputs := []string{
		"2026-11-29", "2026-11-29 23:04", "2026-11-29T23:04", "2026-11-29 23:04:05", "2026-11-29T23:04:05",
		"2026-11-29 23:04:05.1", "2026-11-29 23:04:05.123456789", "2026-11-29 23:04:05.1234567891234",
		"2026-11-29T23:04:05.5+01:00", "2026-11-29 23:04:05-07:30", "2026-11-29 23:04:05+00:00",
		"2026-11-29 23:04:05.000-00:00", "2024-02-29", "2023-02-29", "2026-13-01", "2026-00-10", "2026-04-31",
		"2026-11-29 24:00", "2026-11-29 23:60", "2026-11-29 23:59:60", "2026-11-29 23:04:05+25:00",
		"2026-11-29 23:04+01:00", "2026-11-29 23:04:05 +01:00", "2026-11-29x", "2026-1-29", "26-11-29",
		"2026-11-29 23:04:05.", "2026-11-29 23:04:05,25", "0001-01-01", "9999-12-31 23:59:59.999999999",
		"2026-11-29 3:04:05", "", "not a time", "2026-11-29T23:04:05+01:00:00", "2026-11-29 23:04:05.12+05:45",
	}
	for _, in := range inputs {
		want, wantOK := slowParse(in)
		got, gotOK := parseDefaultFormats(in)
		if gotOK && (!wantOK || !got.Equal(want) || offset(got) != offset(want)) {
			t.Errorf("%q: fast parse gave %v, time.Parse gave %v (ok=%v)", in, got, want, wantOK)
		}
		if !gotOK && wantOK {
			// Allowed only because parseTime then falls back to time.Parse.
			if p, ok := parseTime([]byte(in), nil); !ok || !p.Equal(want) {
				t.Errorf("%q: parseTime gave %v %v, want %v", in, p, ok, want)
			}
		}
	}
}

func slowParse(s string) (time.Time, bool) {
	for _, f := range builtinFormats {
		if t, err := time.ParseInLocation(f, s, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func offset(t time.Time) int {
	_, off := t.Zone()
	return off
}

func TestParseTimeLocation(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	got, ok := parseTime([]byte("2026-11-29 12:00:00Z"), ny)
	if !ok || got.Location() != ny || !got.Equal(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %v %v", got, ok)
	}
	if _, ok := parseTime([]byte("yesterday"), nil); ok {
		t.Fatal("parsed garbage as a time")
	}
}

// The calendar arithmetic behind the fast parser must agree with the time
// package on every day of the years it can read (0000-9999).
func TestCivilDaysMatchesTimeDate(t *testing.T) {
	for d := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 10000; d = d.AddDate(0, 0, 1) {
		y, m, day := d.Date()
		if got, want := civilDays(y, int(m), day), d.Unix()/86400; got != want {
			t.Fatalf("%v: civilDays %d, want %d", d, got, want)
		}
		if day == 1 {
			if got, want := daysIn(int(m), y), d.AddDate(0, 1, -1).Day(); got != want {
				t.Fatalf("%v: daysIn %d, want %d", d, got, want)
			}
		}
	}
}

func BenchmarkParseTime(b *testing.B) {
	in := []byte("2026-11-29 23:04:05.123456789+01:00")
	for b.Loop() {
		if _, ok := parseTime(in, nil); !ok {
			b.Fatal("no parse")
		}
	}
}

func FuzzParseDefaultFormats(f *testing.F) {
	for _, s := range []string{"2026-11-29 23:04:05.123+01:00", "2026-11-29T23:04", "2026-02-29", "2026-11-29 23:04:05,5-00:30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := parseDefaultFormats(in)
		if !ok {
			return
		}
		want, wantOK := slowParse(in)
		if !wantOK || !got.Equal(want) || offset(got) != offset(want) {
			t.Fatalf("%q: fast parse gave %v, time.Parse gave %v (ok=%v)", in, got, want, wantOK)
		}
	})
}
