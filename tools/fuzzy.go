package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/tools/internal/fuzzy"
)

// The fuzzy find-and-replace engine lives in package tools/internal/fuzzy;
// this file is its call site for the patch tool and the V4A applier.

// FuzzyReplace is hermes-agent's fuzzy_find_and_replace: it replaces
// oldString by newString in content with the first of nine matching
// strategies that finds a region (unique unless replaceAll). Failures are
// *fuzzy.Error values whose text the model reads verbatim; when ctx is done
// it returns ctx's error, wrapped. See [fuzzy.Replace]. bench/limits
// measures it.
func FuzzyReplace(ctx context.Context, content, oldString, newString string, replaceAll bool) (fuzzy.Result, error) {
	return fuzzy.Replace(ctx, content, oldString, newString, replaceAll)
}

// pyRepr is Python's repr() of a str, used where hermes formats a path with
// !r.
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == ' ' || (r != 0x7f && r > ' ' && unicode.IsPrint(r)):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += w
	}
	b.WriteByte(quote)
	return b.String()
}
