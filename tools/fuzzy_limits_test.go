package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// similarLines returns n lines alike enough that every pair of them needs a
// full similarity ratio: the hostile input of the similarity strategies.
func similarLines(prefix string, n, mod int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\t%s%d := compute(a, b, %d) // step\n", prefix, i, i%mod)
	}
	return b.String()
}

func TestApplyV4ACancel(t *testing.T) {
	t.Parallel()
	ops, err := ParseV4A("*** Begin Patch\n*** Update File: a.txt\n@@\n-nothing like this\n+x\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	changes, err := ApplyV4A(ctx, ops, memFS{"a.txt": similarLines("x", 100, 7)})
	if !errors.Is(err, context.Canceled) || changes != nil {
		t.Fatalf("ApplyV4A(cancelled ctx) = %v, %v; want no changes and context.Canceled", changes, err)
	}
}
