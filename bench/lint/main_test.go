package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := `goos: linux
BenchmarkCheck/go-2         	     100	  3000000 ns/op	   2.01 MB/s
BenchmarkCheck/go-2         	     100	  1000000 ns/op	   2.01 MB/s
BenchmarkCheck/go-2         	     100	  2000000 ns/op	   2.01 MB/s
BenchmarkDelta/json/clean-2 	      20	 10227960 ns/op	 102.51 MB/s	  1200 B/op
BenchmarkDeltaPreexisting 	      20	 5 ns/op
PASS
`
	got, err := parseBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"BenchmarkCheck/go":         {3000000, 1000000, 2000000},
		"BenchmarkDelta/json/clean": {10227960},
		"BenchmarkDeltaPreexisting": {5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseBench (-want +got):\n%s", diff)
	}
	if got := median(want["BenchmarkCheck/go"]); got != 2000000 {
		t.Errorf("median = %v, want 2000000", got)
	}
	if _, err := parseBench(strings.NewReader("PASS\n")); err == nil {
		t.Error("parseBench(no results) = nil error, want an error")
	}
}

func TestMedianAndFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{[]float64{1}, 1}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{9, 1, 5}, 5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for ns, want := range map[float64]string{1500: "2 µs", 2_500_000: "2.50 ms"} {
		if got := formatNs(ns); got != want {
			t.Errorf("formatNs(%v) = %q, want %q", ns, got, want)
		}
	}
}
