// Package pyfmt formats numbers the way the hermes-agent messages the model
// and the user read them do (Python's format specs), for the packages that
// must say them word for word. It depends on nothing of the module.
package pyfmt

import "strconv"

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
