package registry

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting, as encoding/json does, so hostile input
// cannot exhaust the stack.
const maxJSONDepth = 10000

// decodeJSON decodes exactly one JSON value from s into map[string]any,
// []any, string, bool, nil, int (integers without fraction or exponent that
// fit) or float64 — Python's json semantics. Strings are unescaped like
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD). It
// exists because the pipeline parses every tool call's arguments and
// encoding/json's reflection dominated the dispatch cost.
func decodeJSON(s string) (any, error) {
	d := jsonDecoder{s: s}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.i != len(d.s) {
		return nil, d.errorf("trailing data after value")
	}
	return v, nil
}

type jsonDecoder struct {
	s string
	i int
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("decode json: offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

func (d *jsonDecoder) skipSpace() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, d.errorf("exceeded max depth")
	}
	if d.i >= len(d.s) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, nil
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, nil
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return nil, nil
	default:
		return nil, d.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (d *jsonDecoder) object(depth int) (any, error) {
	d.i++ // {
	m := make(map[string]any)
	d.skipSpace()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.errorf("looking for beginning of object key string")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.errorf("after object key")
		}
		d.i++
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.skipSpace()
		if d.i >= len(d.s) {
			return nil, d.errorf("unexpected end of input in object")
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.skipSpace()
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.errorf("after object key:value pair")
		}
	}
}

func (d *jsonDecoder) array(depth int) (any, error) {
	d.i++ // [
	l := []any{}
	d.skipSpace()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return l, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		d.skipSpace()
		if d.i >= len(d.s) {
			return nil, d.errorf("unexpected end of input in array")
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.skipSpace()
		case ']':
			d.i++
			return slices.Clip(l), nil
		default:
			return nil, d.errorf("after array element")
		}
	}
}

// number scans a JSON number and converts it like Python: an integer literal
// that fits is an int, anything else a float64; a literal beyond float64's
// range keeps its digits as a string rather than become an infinity.
func (d *jsonDecoder) number() (any, error) {
	start := d.i
	isInt := true
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.i < len(d.s) && d.s[d.i] >= '1' && d.s[d.i] <= '9':
		d.digits()
	default:
		return nil, d.errorf("in numeric literal")
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		isInt = false
		d.i++
		if d.digits() == 0 {
			return nil, d.errorf("after decimal point in numeric literal")
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		isInt = false
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return nil, d.errorf("in exponent of numeric literal")
		}
	}
	lit := d.s[start:d.i]
	if isInt {
		if n, err := strconv.ParseInt(lit, 10, strconv.IntSize); err == nil {
			return int(n), nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && math.IsInf(f, 0) {
		return lit, nil
	}
	return f, nil
}

func (d *jsonDecoder) digits() int {
	n := 0
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
		n++
	}
	return n
}

// str scans a string starting at the opening quote.
func (d *jsonDecoder) str() (string, error) {
	d.i++ // opening quote
	start := d.i
	for d.i < len(d.s) { // fast path: plain ASCII without escapes
		c := d.s[d.i]
		if c == '"' {
			d.i++
			return d.s[start : d.i-1], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	var b strings.Builder
	b.WriteString(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String(), nil
		case c < 0x20:
			return "", d.errorf("invalid character %q in string literal", c)
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return "", d.errorf("unexpected end of input in string escape")
			}
			e := d.s[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(d.s, d.i)
				if !ok {
					return "", d.errorf("in \\u hexadecimal character escape")
				}
				d.i += 4
				if utf16.IsSurrogate(r) {
					if d.i+1 < len(d.s) && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' {
						if r2, ok := hex4(d.s, d.i+2); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								d.i += 6
								b.WriteRune(dec)
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				return "", d.errorf("invalid character %q in string escape code", e)
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			b.WriteRune(r) // invalid bytes become U+FFFD, one per byte
			d.i += size
		}
	}
	return "", d.errorf("unexpected end of input in string literal")
}

// hex4 parses four hexadecimal digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
