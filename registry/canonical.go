package registry

import (
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// canonicalHash returns the hex SHA-256 of v's canonical form: objects with
// sorted keys, no insignificant space, Go-quoted strings. It is injective
// over decoded JSON values (hermes hashes sorted compact JSON the same way),
// so equal arguments or results hash equally whatever their key order.
func canonicalHash(v any) [sha256.Size]byte {
	var arr [512]byte
	return sha256.Sum256(appendCanonical(arr[:0], v))
}

func appendCanonical(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case string:
		return strconv.AppendQuote(b, t)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case int64:
		return strconv.AppendInt(b, t, 10)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return strconv.AppendInt(b, int64(t), 10) // 5.0 and 5 are the same argument
		}
		return strconv.AppendFloat(b, t, 'g', -1, 64)
	case map[string]any:
		b = append(b, '{')
		var kbuf [16]string
		keys := kbuf[:0]
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			b = appendCanonical(b, t[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, x)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, x)
		}
		return append(b, ']')
	default: // values a Go caller put in Args: their JSON, else Go syntax
		if s, err := marshalJSON(v); err == nil {
			return append(append(b, '!'), s...)
		}
		return fmt.Appendf(b, "?%#v", v)
	}
}
