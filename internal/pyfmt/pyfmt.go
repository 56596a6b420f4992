// Package pyfmt formats numbers the way the hermes-agent messages the model
// and the user read them do (Python's format specs), for the packages that
// must say them word for word. It depends on nothing of the module.
package pyfmt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Thousands writes n with sep between groups of three digits: Python's
// f"{n:,}" with sep ",", or "48 213" with sep " ".
func Thousands(n int64, sep string) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	if len(s) <= 3 {
		return sign + s
	}
	b := make([]byte, 0, len(sign)+len(s)+(len(s)-1)/3*len(sep))
	b = append(b, sign...)
	first := len(s) % 3
	if first == 0 {
		first = 3
	}
	b = append(b, s[:first]...)
	for i := first; i < len(s); i += 3 {
		b = append(b, sep...)
		b = append(b, s[i:i+3]...)
	}
	return string(b)
}

// Commas is Thousands with ",": Python's f"{n:,}".
func Commas(n int64) string { return Thousands(n, ",") }

// TypeName names the type of a decoded JSON value as Python does, for
// hermes's messages ("expected string, got int"): NoneType, bool, str,
// int, float, list, dict. A number is int when it has no fraction or
// exponent (json.Number by its text, a float64 by its value: JSON's 42
// and 42.0 decode alike in Go, and models write 42), float otherwise.
// Other Go types give their Go name.
func TypeName(v any) string {
	switch n := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "int"
	case json.Number:
		if strings.ContainsAny(string(n), ".eE") {
			return "float"
		}
		return "int"
	case float64:
		return floatName(n)
	case float32:
		return floatName(float64(n))
	}
	return fmt.Sprintf("%T", v)
}

// floatName is TypeName of a float: int when it is a whole number as
// Python's json would have read it (no exponent in its shortest form).
func floatName(f float64) string {
	if strings.ContainsAny(strconv.FormatFloat(f, 'g', -1, 64), ".eEnN") {
		return "float"
	}
	return "int"
}
