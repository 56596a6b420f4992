package danger

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzCheck: Check never panics, gives the same verdict twice, a hardline
// verdict is also dangerous, a dangerous one names its rules, each once.
// PrefixEntry never offers an entry for a command with shell operators nor
// the command itself, and an offered entry, stored, covers the command; so
// does the exact command.
func FuzzCheck(f *testing.F) {
	for _, d := range dangerousTable {
		f.Add(d.cmd)
	}
	for _, s := range safeTable {
		f.Add(s)
	}
	for _, s := range []string{
		"", " ", "\\", "'", `"`, "$(", "`", "${", "<<", "<<EOF", "((", "[[ -f x", "case x in", "a\\\n",
		"rm -rf /", ":(){ :|:& };:", "bash -c 'bash -c \"eval rm\"'", "\x1b[", "\x1b]", "\u009b31m",
		"ｒｍ", "rm${IFS", "$'\\x41'", "cat <<-X\n\tY\n\tX", "f() ( rm -r x )", "coproc rm -r x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v := Check(cmd)
		if again := Check(cmd); !reflect.DeepEqual(again, v) {
			t.Fatalf("Check(%q) not deterministic: %+v then %+v", cmd, v, again)
		}
		if v.Hardline && !v.Dangerous || v.Dangerous != (len(v.Rules) > 0) {
			t.Fatalf("Check(%q) = %+v: the flags and the rules disagree", cmd, v)
		}
		seen := map[string]bool{}
		for _, r := range v.Rules {
			if seen[r.Key] || r.Key == "" || CanonicalKey(r.Key) != r.Key {
				t.Fatalf("Check(%q) = %+v: a key twice, empty or not canonical", cmd, v)
			}
			seen[r.Key] = true
			if r.Hardline && !v.Hardline {
				t.Fatalf("Check(%q) = %+v: a floor rule in a verdict that is not hardline", cmd, v)
			}
		}
		if e, ok := PrefixEntry(cmd, v); ok {
			if HasShellOperators(cmd) || e == strings.TrimSpace(cmd) {
				t.Fatalf("PrefixEntry(%q) = %q", cmd, e)
			}
			if u := Uncovered(cmd, v, []string{e}, nil); len(u) != 0 {
				t.Fatalf("PrefixEntry(%q) = %q does not cover the command: %v left", cmd, e, u)
			}
		}
		if !v.Hardline {
			if u := Uncovered(cmd, v, []string{cmd}, nil); len(u) != 0 && strings.TrimSpace(cmd) == cmd {
				t.Fatalf("the exact entry %q leaves %v", cmd, u)
			}
		}
	})
}
