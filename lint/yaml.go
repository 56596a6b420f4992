package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"gopkg.in/yaml.v3"
)

// checkYAML checks every document of a YAML stream with yaml.v3, decoding into
// yaml.Node only, so that custom tags (!Sub, !Ref, !vault) are valid, as they
// are for a YAML parser that builds no values. Each document is walked for
// duplicate mapping keys, which yaml.v3 does not report for nodes. Parsing
// stops at the first syntax error; duplicate keys of the documents before it
// are still reported.
func checkYAML(content []byte) []finding {
	var fs []finding
	var lines []int // yaml.v3's line starts, computed on first need
	lineStarts := func() []int {
		if lines == nil {
			lines = yamlLineStarts(content)
		}
		return lines
	}
	dec := yaml.NewDecoder(bytes.NewReader(content))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return fs
		}
		if err != nil {
			return append(fs, yamlSyntaxFinding(content, lineStarts, err))
		}
		fs = yamlDuplicateKeys(content, lineStarts, &doc, fs)
	}
}

// yamlDuplicateKeys appends a finding for every mapping key under n that
// repeats an earlier key of the same mapping. Aliases are not followed, and
// merge keys (<<) may repeat.
func yamlDuplicateKeys(content []byte, lineStarts func() []int, n *yaml.Node, fs []finding) []finding {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			fs = yamlDuplicateKeys(content, lineStarts, c, fs)
		}
	case yaml.MappingNode:
		keys := make([]yamlKey, 0, len(n.Content)/2) // the mapping's keys so far
		var index map[yamlKeyID]*yaml.Node           // for large mappings only
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if id, ok := yamlKeyIdentity(k); ok {
				if first := findYAMLKey(keys, index, id); first != nil {
					fs = append(fs, yamlDuplicateFinding(content, lineStarts(), k, id.value, first))
				} else {
					keys = append(keys, yamlKey{id, k})
					switch {
					case index != nil:
						index[id] = k
					case len(keys) > 16:
						index = make(map[yamlKeyID]*yaml.Node, len(n.Content)/2)
						for _, key := range keys {
							index[key.id] = key.node
						}
					}
				}
			}
			fs = yamlDuplicateKeys(content, lineStarts, k, fs)
			fs = yamlDuplicateKeys(content, lineStarts, n.Content[i+1], fs)
		}
	}
	return fs
}

// yamlKeyID is what makes a scalar mapping key unique: its resolved tag and
// its text.
type yamlKeyID struct{ tag, value string }

// yamlKey is a key of a mapping and the node where it is defined.
type yamlKey struct {
	id   yamlKeyID
	node *yaml.Node
}

// findYAMLKey returns the node of the key id among keys (looked up in index
// once a mapping is large), or nil.
func findYAMLKey(keys []yamlKey, index map[yamlKeyID]*yaml.Node, id yamlKeyID) *yaml.Node {
	if index != nil {
		return index[id]
	}
	for _, k := range keys {
		if k.id == id {
			return k.node
		}
	}
	return nil
}

// yamlKeyIdentity returns the identity of a scalar key (through an alias),
// so that "1" (a string) and 1 (an int) differ. Complex keys and merge keys
// have no identity here.
func yamlKeyIdentity(k *yaml.Node) (yamlKeyID, bool) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return yamlKeyID{}, false
	}
	tag := k.ShortTag()
	if tag == "!!merge" {
		return yamlKeyID{}, false
	}
	return yamlKeyID{tag, k.Value}, true
}

// yamlDuplicateFinding reports key k, whose text is value (through an
// alias), which repeats first.
func yamlDuplicateFinding(content []byte, lines []int, k *yaml.Node, value string, first *yaml.Node) finding {
	start := yamlOffset(content, lines, k.Line, k.Column)
	return finding{
		start:    start,
		end:      yamlKeyEnd(content, start, k),
		severity: protocol.DiagnosticSeverityWarning,
		code:     CodeYAMLDuplicateKey,
		message:  fmt.Sprintf("mapping key %q already defined at line %d", value, first.Line),
	}
}

// yamlKeyEnd returns where the key token starting at start ends: after its
// text for a plain key or an alias, after the closing quote for a quoted one,
// else at the end of the line's text.
func yamlKeyEnd(content []byte, start int, k *yaml.Node) int {
	lineEnd := lineEndFrom(content, start)
	if start >= lineEnd {
		return start
	}
	switch content[start] {
	case '"', '\'':
		q := content[start]
		for i := start + 1; i < lineEnd; i++ {
			switch {
			case q == '"' && content[i] == '\\':
				i++
			case content[i] == q && q == '\'' && i+1 < lineEnd && content[i+1] == '\'':
				i++ // '' is an escaped quote
			case content[i] == q:
				return i + 1
			}
		}
		return lineEnd
	}
	text := k.Value
	if k.Kind == yaml.AliasNode {
		text = "*" + k.Value
	}
	if text != "" && bytes.HasPrefix(content[start:lineEnd], []byte(text)) {
		return start + len(text)
	}
	return trimRightSpace(content, start, lineEnd)
}

// The problems that yaml.v3's parser (not its scanner) reports. For these, the
// line in yaml.v3's message is 0-based; for scanner problems it is 1-based.
var yamlParserProblems = [...]string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"found undefined tag handle",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

// The problems that yaml.v3's reader reports; their messages have no line.
var yamlReaderProblems = [...]string{
	"control characters are not allowed",
	"invalid leading UTF-8 octet",
	"incomplete UTF-8 octet sequence",
	"invalid trailing UTF-8 octet",
	"invalid length of a UTF-8 sequence",
	"invalid Unicode character",
}

// yamlSyntaxFinding locates a yaml.v3 syntax error. yaml.v3 gives only a
// message, "yaml: [line N: ]problem", whose line is the problem's or its
// context's; the finding covers that line from its first non-space character
// to its end (the last non-blank line before it when the line is blank, as it
// is at the end of input). Reader errors and unknown aliases, whose messages
// have no line, are located in the content itself.
func yamlSyntaxFinding(content []byte, lineStarts func() []int, err error) finding {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1 // yaml.v3 omits the line when it is the first
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if digits, problem, ok := strings.Cut(rest, ": "); ok {
			if n, convErr := strconv.Atoi(digits); convErr == nil && n > 0 {
				line, msg = n, problem
				for _, p := range yamlParserProblems {
					if problem == p {
						line++ // the parser's marks are 0-based
						break
					}
				}
			}
		}
	}
	f := finding{severity: protocol.DiagnosticSeverityError, code: CodeYAMLSyntax, message: msg}
	if off, ok := yamlReaderErrorOffset(content, msg); ok {
		f.start, f.end = off, off+runeLen(content, off)
		return f
	}
	if name, ok := yamlUnknownAnchor(msg); ok {
		if off := findYAMLAlias(content, name); off >= 0 {
			f.start, f.end = off, off+1+len(name)
			return f
		}
	}
	if msg == "found unexpected end of stream" {
		// Only a quoted scalar can run into the end of the stream: point at
		// its opening quote rather than at the end.
		if off := yamlUnclosedQuote(content); off >= 0 {
			f.start, f.end = off, lineEndFrom(content, off)
			return f
		}
	}
	f.start, f.end = yamlLineSpan(content, lineStarts(), line)
	return f
}

// yamlUnclosedQuote returns the offset of the opening quote of a quoted
// scalar that is still open at the end of content, or -1. It knows just
// enough YAML for that: a quote opens a scalar only where a token can start
// (at the start of a line or after white space or one of "-:[{,"), comments
// start with "#" at such a place, a backslash escapes in double quotes, and
// two single quotes stand for one inside single quotes.
func yamlUnclosedQuote(content []byte) int {
	tokenStart := true
	for i := 0; i < len(content); i++ {
		c := content[i]
		switch {
		case (c == '"' || c == '\'') && tokenStart:
			j := i + 1
			for ; j < len(content); j++ {
				if c == '"' && content[j] == '\\' {
					j++
					continue
				}
				if content[j] == c {
					if c == '\'' && j+1 < len(content) && content[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(content) {
				return i
			}
			i, tokenStart = j, false
		case c == '#' && tokenStart:
			i = lineEndFrom(content, i) - 1
		default:
			tokenStart = bytes.IndexByte([]byte(" \t\r\n-:[{,"), c) >= 0
		}
	}
	return -1
}

// yamlReaderErrorOffset finds the first character yaml.v3's reader rejects
// when msg is one of its messages.
func yamlReaderErrorOffset(content []byte, msg string) (int, bool) {
	isReader := false
	for _, p := range yamlReaderProblems {
		if msg == p {
			isReader = true
			break
		}
	}
	if !isReader {
		return 0, false
	}
	for i := 0; i < len(content); {
		r, size := utf8.DecodeRune(content[i:])
		if (r == utf8.RuneError && size == 1) || !yamlPrintable(r) {
			return i, true
		}
		i += size
	}
	return 0, false
}

// yamlPrintable reports whether YAML allows r in a stream (YAML 1.2 §5.1).
func yamlPrintable(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
		(r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// yamlUnknownAnchor returns the name in "unknown anchor 'name' referenced".
func yamlUnknownAnchor(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "unknown anchor '")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, "' referenced")
	return name, ok && name != ""
}

// findYAMLAlias returns the offset of the first alias "*name" that is not the
// prefix of a longer name, or -1.
func findYAMLAlias(content []byte, name string) int {
	needle := []byte("*" + name)
	for from := 0; from < len(content); {
		i := bytes.Index(content[from:], needle)
		if i < 0 {
			return -1
		}
		end := from + i + len(needle)
		if end == len(content) || bytes.IndexByte([]byte(" \t\r\n,]}"), content[end]) >= 0 {
			return from + i
		}
		from += i + 1
	}
	return -1
}

// yamlLineSpan returns the span of 1-based yaml line from its first
// character that is not a space (a tab counts: tabs are often the problem) to
// its last non-blank one, moving up to the last non-blank line before it when
// it is blank or past the end.
func yamlLineSpan(content []byte, lines []int, line int) (start, end int) {
	idx := min(max(line-1, 0), len(lines)-1)
	for ; idx >= 0; idx-- {
		from, to := lines[idx], yamlLineEnd(content, lines, idx)
		s := from
		for s < to && content[s] == ' ' {
			s++
		}
		if e := trimRightSpace(content, s, to); e > s {
			return s, e
		}
	}
	return 0, 0
}

// yamlLineEnd returns where line idx's text ends, before its line break.
func yamlLineEnd(content []byte, lines []int, idx int) int {
	if idx+1 >= len(lines) {
		return len(content)
	}
	end := lines[idx+1]
	for end > lines[idx] {
		r, size := utf8.DecodeLastRune(content[lines[idx]:end])
		if !isYAMLBreak(r) {
			break
		}
		end -= size
	}
	return end
}

// yamlLineStarts returns the offset of each line as yaml.v3 counts lines: a
// line ends at "\r\n", "\r", "\n", NEL (U+0085), LS (U+2028) or PS (U+2029).
func yamlLineStarts(content []byte) []int {
	starts := []int{0}
	for i := 0; i < len(content); {
		c := content[i]
		switch {
		case c == '\r' && i+1 < len(content) && content[i+1] == '\n':
			i += 2
			starts = append(starts, i)
		case c == '\r' || c == '\n':
			i++
			starts = append(starts, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(content[i:])
			i += size
			if isYAMLBreak(r) {
				starts = append(starts, i)
			}
		}
	}
	return starts
}

// isYAMLBreak reports whether r ends a line for yaml.v3.
func isYAMLBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// yamlOffset converts yaml.v3's 1-based line and 1-based column (counted in
// characters) to a byte offset.
func yamlOffset(content []byte, lines []int, line, column int) int {
	if line < 1 || line > len(lines) {
		return len(content)
	}
	off := lines[line-1]
	if line == 1 && bytes.HasPrefix(content, []byte(utf8BOM)) {
		off = len(utf8BOM) // yaml.v3 does not count the byte order mark
	}
	for col := 1; col < column && off < len(content); col++ {
		off += runeLen(content, off)
	}
	return off
}

// trimRightSpace returns end moved back over spaces and tabs, not before start.
func trimRightSpace(content []byte, start, end int) int {
	for end > start && (content[end-1] == ' ' || content[end-1] == '\t') {
		end--
	}
	return end
}
