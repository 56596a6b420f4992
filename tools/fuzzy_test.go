package tools

import (
	"fmt"
	"strings"
)

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
