package runbench

import "testing"

func TestParseBenchLine(t *testing.T) {
	name, m, ok := ParseBenchLine("BenchmarkWideScan/String-2\t  12\t1234567 ns/op\t61.7 ns/row\t720 B/op\t7 allocs/op")
	if !ok || name != "WideScan/String" || m["ns/op"] != 1234567 || m["ns/row"] != 61.7 ||
		m["B/op"] != 720 || m["allocs/op"] != 7 {
		t.Fatalf("got %q %v %v", name, m, ok)
	}
	for _, bad := range []string{"", "goos: linux", "BenchmarkX-2 abc 1 ns/op", "BenchmarkX-2 1 1"} {
		if _, _, ok := ParseBenchLine(bad); ok {
			t.Errorf("parsed %q", bad)
		}
	}
}

func TestParseBenchLineCustomUnits(t *testing.T) {
	name, m, ok := ParseBenchLine("BenchmarkWriters/mode=shared/inserts=1/writers=8/readers=0-2\t 2000\t50000 ns/op\t20000 tx/s\t0.0113 p50-ms\t3 errors")
	if !ok || name != "Writers/mode=shared/inserts=1/writers=8/readers=0" || m["tx/s"] != 20000 || m["p50-ms"] != 0.0113 || m["errors"] != 3 {
		t.Fatalf("got %q %v %v", name, m, ok)
	}
	for _, bad := range []string{"", "# DSN file:PATH", "BenchmarkX-2 abc 1 ns/op"} {
		if _, _, ok := ParseBenchLine(bad); ok {
			t.Errorf("parsed %q", bad)
		}
	}
}
