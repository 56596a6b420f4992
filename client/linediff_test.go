package client

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, a, b string
		want       []string
	}{
		{"equal", "a\nb\n", "a\nb\n", nil},
		{"new file", "", "x\ny", []string{"+ x", "+ y"}},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", []string{"- b", "+ B"}},
		{"two changes apart list only the changed lines", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []string{"- a", "+ A", "- e", "+ E"}},
		{"insertion", "a\nc\n", "a\nb\nc\n", []string{"+ b"}},
		{"deletion at the end", "a\nb\n", "a\n", []string{"- b"}},
	}
	for _, tt := range tests {
		if got := lineDiff(tt.a, tt.b); !cmp.Equal(tt.want, got) {
			t.Errorf("%s: lineDiff(%q, %q) = %q, want %q", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}
