package pyfmt

import (
	"encoding/json"
	"math"
	"testing"
)

// TestThousands: the outputs of Python's f"{n:,}" (and the same grouping
// with a space).
func TestThousands(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {-1000, "-1,000"}, {-999, "-999"},
		{2200, "2,200"}, {12345, "12,345"}, {123456, "123,456"}, {1234567, "1,234,567"}, {100000, "100,000"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Commas(c.n); got != c.want {
			t.Errorf("Commas(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := Thousands(48213, " "); got != "48 213" {
		t.Errorf(`Thousands(48213, " ") = %q`, got)
	}
}

// TestTypeName: Python's type names of decoded JSON values.
func TestTypeName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "NoneType"}, {true, "bool"}, {"x", "str"}, {[]any{1}, "list"}, {map[string]any{}, "dict"},
		{42, "int"}, {int64(-3), "int"}, {42.0, "int"}, {2.5, "float"}, {1e21, "float"}, {math.NaN(), "float"},
		{json.Number("7"), "int"}, {json.Number("7.0"), "float"}, {json.Number("1e3"), "float"},
		{struct{}{}, "struct {}"},
	} {
		if got := TypeName(c.v); got != c.want {
			t.Errorf("TypeName(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}
