package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestPyRepr(t *testing.T) {
	t.Parallel()
	reprs := []struct{ in, want string }{
		{"a/b.py", "'a/b.py'"},
		{"it's", `"it's"`},
		{`both ' and "`, `'both \' and "'`},
		{"tab\tnl\n\x01\\", `'tab\tnl\n\x01\\'`},
		{"caf\u00e9 \u00a0", "'caf\u00e9 \\xa0'"},
	}
	for _, tt := range reprs {
		if got := pyRepr(tt.in); got != tt.want {
			t.Errorf("pyRepr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// benchFile is a Go-like file of n lines with few repeated lines.
func benchFile(n int) string {
	var b strings.Builder
	for i := range n {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "func handler%d(ctx context.Context, req *Request) error {\n", i)
		case 1:
			fmt.Fprintf(&b, "\tvalue%d := compute(req.Field%d, %d)\n", i, i%13, i)
		case 2:
			fmt.Fprintf(&b, "\tif value%d > limit {\n", i-1)
		case 3:
			fmt.Fprintf(&b, "\t\treturn fmt.Errorf(\"handler %d: %%w\", errTooBig)\n", i)
		case 4:
			b.WriteString("\t}\n")
		case 5:
			fmt.Fprintf(&b, "\treturn store.Save(ctx, %q, value%d)\n", fmt.Sprint("key", i), i-4)
		case 6:
			b.WriteString("}\n")
		}
	}
	return b.String()
}
