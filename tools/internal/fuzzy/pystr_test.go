package fuzzy

import "testing"

func TestRepr(t *testing.T) {
	t.Parallel()
	reprs := []struct{ in, want string }{
		{"a/b.py", "'a/b.py'"},
		{"it's", `"it's"`},
		{`both ' and "`, `'both \' and "'`},
		{"tab\tnl\n\x01\\", `'tab\tnl\n\x01\\'`},
		{"caf\u00e9 \u00a0", "'caf\u00e9 \\xa0'"},
	}
	for _, tt := range reprs {
		if got := Repr(tt.in); got != tt.want {
			t.Errorf("Repr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
