package pycmd

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// kind is a token's kind.
type kind uint8

const (
	tName kind = iota
	tString
	tNumber
	tOp
	tNewline // the end of a logical line (outside brackets), or ';'
)

// token is one Python token.
type token struct {
	kind kind
	text string // the source text (a string's whole literal, prefix and quotes included)
	line int    // 1-based line of its start
	// strings: val is the value (for an f-string with fields, the literal
	// parts with each field as {source}); lit is false when the value is
	// only known at run time (f-string fields, \N{…} escapes).
	val   string
	lit   bool
	parts []part // the value in pieces: literal text and f-string fields
}

// part is a piece of a string's value: literal text, or (lit false) the
// source of an f-string field, braces included, or an escape whose value
// is not known.
type part struct {
	s   string
	lit bool
}

func (t token) is(op string) bool  { return t.kind == tOp && t.text == op }
func (t token) name(n string) bool { return t.kind == tName && t.text == n }

// stringPrefixes are the prefixes a string literal may carry (lower-cased).
var stringPrefixes = map[string]bool{
	"r": true, "u": true, "b": true, "f": true, "t": true,
	"br": true, "rb": true, "fr": true, "rf": true, "tr": true, "rt": true,
}

// ops are Python's operators and delimiters of more than one character,
// longest first.
var ops = []string{
	"**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=",
	"<<", "<=", "==", ">=", ">>", "@=", "^=", "|=",
}

// tokenize splits src into tokens. Comments and line continuations are
// dropped; a newline inside brackets is not a token. The error is for a
// string that never ends.
func tokenize(src string) ([]token, error) {
	var out []token
	line, depth := 1, 0
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || (src[i+1] == '\r' && i+2 < len(src) && src[i+2] == '\n')):
			i++
			if src[i] == '\r' {
				i++
			}
			i++
			line++
		case c == '\n':
			if depth == 0 {
				out = append(out, token{kind: tNewline, text: "\n", line: line})
			}
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\\':
			i++
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			word := src[i:j]
			if j < len(src) && (src[j] == '\'' || src[j] == '"') && stringPrefixes[strings.ToLower(word)] {
				t, end, lines, err := readString(src, i, j, line)
				if err != nil {
					return out, err
				}
				out = append(out, t)
				i, line = end, line+lines
				continue
			}
			out = append(out, token{kind: tName, text: word, line: line})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i + 1
			for j < len(src) && (isIdentPart(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			out = append(out, token{kind: tNumber, text: src[i:j], line: line})
			i = j
		case c == '\'' || c == '"':
			t, end, lines, err := readString(src, i, i, line)
			if err != nil {
				return out, err
			}
			out = append(out, t)
			i, line = end, line+lines
		default:
			op := string(c)
			for _, o := range ops {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth > 0 {
					depth--
				}
			}
			if op == ";" {
				out = append(out, token{kind: tNewline, text: ";", line: line})
			} else {
				out = append(out, token{kind: tOp, text: op, line: line})
			}
			i += len(op)
		}
	}
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// readString reads the string literal whose prefix starts at start and
// whose opening quote is at q. It returns the token, the offset after it
// and the newlines it spans.
func readString(src string, start, q, line int) (token, int, int, error) {
	prefix := strings.ToLower(src[start:q])
	raw := strings.Contains(prefix, "r")
	fmtd := strings.Contains(prefix, "f") || strings.Contains(prefix, "t")
	bytes := strings.Contains(prefix, "b")
	quote := src[q : q+1]
	if strings.HasPrefix(src[q:], strings.Repeat(quote, 3)) {
		quote = strings.Repeat(quote, 3)
	}
	i := q + len(quote)
	var val strings.Builder
	var parts []part
	lit := true
	lines := 0
	// flush moves what val holds since the last part into parts.
	done := 0
	flush := func() {
		if v := val.String(); len(v) > done {
			parts = append(parts, part{s: v[done:], lit: true})
			done = len(v)
		}
	}
	field := func(s string) {
		flush()
		val.WriteString(s)
		parts = append(parts, part{s: s})
		done = val.Len()
		lit = false
	}
	for {
		if i >= len(src) {
			return token{}, 0, 0, fmt.Errorf("line %d: the string that starts there never ends", line)
		}
		if strings.HasPrefix(src[i:], quote) {
			i += len(quote)
			break
		}
		c := src[i]
		switch {
		case c == '\n' && len(quote) == 1:
			return token{}, 0, 0, fmt.Errorf("line %d: the string that starts there ends at the end of the line", line)
		case c == '\\':
			if i+1 >= len(src) {
				i++
				continue
			}
			if raw {
				if src[i+1] == '\n' {
					lines++
				}
				val.WriteString(src[i : i+2])
				i += 2
				continue
			}
			s, n, ok := unescape(src[i:], bytes)
			if strings.HasPrefix(src[i+1:], "\n") {
				lines++
			}
			if ok {
				val.WriteString(s)
			} else {
				field(s)
			}
			i += n
		case fmtd && c == '{':
			if i+1 < len(src) && src[i+1] == '{' {
				val.WriteByte('{')
				i += 2
				continue
			}
			end, n, err := readField(src, i, line+lines)
			if err != nil {
				return token{}, 0, 0, err
			}
			lines += n
			field(src[i:end])
			i = end
		case fmtd && c == '}' && i+1 < len(src) && src[i+1] == '}':
			val.WriteByte('}')
			i += 2
		default:
			if c == '\n' {
				lines++
			}
			val.WriteByte(c)
			i++
		}
	}
	flush()
	return token{kind: tString, text: src[start:i], line: line, val: val.String(), lit: lit, parts: parts}, i, lines, nil
}

// readField reads an f-string replacement field starting at the '{' at i
// and returns the offset after its '}' and the newlines it spans. Strings
// inside it are read as literals (Python 3.12 lets them reuse the outer
// quote).
func readField(src string, i, line int) (int, int, error) {
	depth, lines := 0, 0
	for j := i; j < len(src); {
		c := src[j]
		switch {
		case c == '{' || c == '(' || c == '[':
			depth++
			j++
		case c == '}' || c == ')' || c == ']':
			depth--
			j++
			if depth == 0 {
				return j, lines, nil
			}
		case c == '\'' || c == '"':
			_, end, n, err := readString(src, j, j, line+lines)
			if err != nil {
				return 0, 0, err
			}
			lines += n
			j = end
		case isIdentStart(c):
			k := j
			for k < len(src) && isIdentPart(src[k]) {
				k++
			}
			if k < len(src) && (src[k] == '\'' || src[k] == '"') && stringPrefixes[strings.ToLower(src[j:k])] {
				_, end, n, err := readString(src, j, k, line+lines)
				if err != nil {
					return 0, 0, err
				}
				lines += n
				j = end
				continue
			}
			j = k
		default:
			if c == '\n' {
				lines++
			}
			j++
		}
	}
	return 0, 0, fmt.Errorf("line %d: an f-string field that starts there never ends", line)
}

// unescape decodes the escape sequence at the start of s (s[0] is the
// backslash) as Python does in a str (or bytes) literal. It returns the
// text, the bytes consumed and false for an escape whose value it does not
// know (\N{…}).
func unescape(s string, bytes bool) (string, int, bool) {
	c := s[1]
	switch c {
	case '\n':
		return "", 2, true
	case '\\', '\'', '"':
		return string(c), 2, true
	case 'a':
		return "\a", 2, true
	case 'b':
		return "\b", 2, true
	case 'f':
		return "\f", 2, true
	case 'n':
		return "\n", 2, true
	case 'r':
		return "\r", 2, true
	case 't':
		return "\t", 2, true
	case 'v':
		return "\v", 2, true
	case 'x':
		if len(s) >= 4 {
			if n, err := strconv.ParseUint(s[2:4], 16, 8); err == nil {
				if bytes {
					return string([]byte{byte(n)}), 4, true
				}
				return string(rune(n)), 4, true
			}
		}
	case 'u', 'U':
		if bytes {
			break
		}
		w := 4
		if c == 'U' {
			w = 8
		}
		if len(s) >= 2+w {
			if n, err := strconv.ParseUint(s[2:2+w], 16, 32); err == nil && utf8.ValidRune(rune(n)) {
				return string(rune(n)), 2 + w, true
			}
		}
	case 'N':
		if bytes {
			break
		}
		if end := strings.IndexByte(s, '}'); strings.HasPrefix(s[2:], "{") && end > 0 {
			return s[:end+1], end + 1, false
		}
	}
	if c >= '0' && c <= '7' {
		j := 1
		for j < 4 && j < len(s) && s[j] >= '0' && s[j] <= '7' {
			j++
		}
		n, _ := strconv.ParseUint(s[1:j], 8, 32)
		if bytes {
			return string([]byte{byte(n)}), j, true
		}
		return string(rune(n)), j, true
	}
	// An unknown escape keeps its backslash, as in Python.
	_, size := utf8.DecodeRuneInString(s[1:])
	return s[:1+size], 1 + size, true
}
