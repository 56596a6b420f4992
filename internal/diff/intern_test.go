package diff

import (
	"slices"
	"testing"
)

func TestInterner(t *testing.T) {
	var in Interner[string]
	if _, ok := in.Lookup("a"); ok {
		t.Errorf("the zero Interner knows %q", "a")
	}
	if got := in.IDs([]string{"a", "b", "a", "c", "b"}); !slices.Equal(got, []int32{0, 1, 0, 2, 1}) {
		t.Errorf("IDs = %v, want [0 1 0 2 1]", got)
	}
	if id, ok := in.Lookup("c"); !ok || id != 2 {
		t.Errorf("Lookup(c) = %d, %v; want 2, true", id, ok)
	}
	if _, ok := in.Lookup("d"); ok || in.Len() != 3 {
		t.Errorf("Lookup numbered a new value: Len = %d", in.Len())
	}
}
