package checkpoint

import (
	"strings"
	"testing"
)

// TestRefPrefixSessionIDs: only ids of 1 to 128 ASCII letters, digits, '_'
// and '-' name a checkpoint reference; anything else (a path, a ref
// component git refuses, non-ASCII) is refused with an error.
func TestRefPrefixSessionIDs(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{"sess_0123abcdef", true},
		{"A-z_9", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"", false},
		{"a/b", false},
		{"../x", false},
		{"a.b", false},
		{"a b", false},
		{"sess\n", false},
		{"séance", false},
		{"a~1", false},
	} {
		p, err := refPrefix(c.id)
		if c.ok && (err != nil || p != "refs/hermes/sessions/"+c.id+"/") {
			t.Errorf("refPrefix(%q) = %q, %v; want the session's prefix", c.id, p, err)
		}
		if !c.ok && err == nil {
			t.Errorf("refPrefix(%q) = %q; want an error", c.id, p)
		}
	}
}
