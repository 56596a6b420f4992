package danger

import (
	"strings"
	"testing"
)

// FuzzCheck: Check never panics, gives the same verdict twice, a hardline
// verdict is also dangerous, and a dangerous verdict always carries its key.
// Prefix never offers a prefix for a command with shell operators, and an
// offered prefix, stored, allows the command.
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
		if again := Check(cmd); again != v {
			t.Fatalf("Check(%q) not deterministic: %+v then %+v", cmd, v, again)
		}
		if v.Hardline && !v.Dangerous {
			t.Fatalf("Check(%q) = %+v: hardline but not dangerous", cmd, v)
		}
		if v.Dangerous != (v.Key != "") || v.Key != v.Description {
			t.Fatalf("Check(%q) = %+v: key and verdict disagree", cmd, v)
		}
		if p, ok := Prefix(cmd); ok {
			if HasShellOperators(strings.TrimSpace(cmd)) || p == "" {
				t.Fatalf("Prefix(%q) = %q for a compound command", cmd, p)
			}
			if !v.Hardline && !Allowed(cmd, v, []string{PrefixEntry(p)}) && !strings.ContainsAny(p, "*?[") {
				t.Fatalf("PrefixEntry(%q) does not allow %q", p, cmd)
			}
		}
	})
}
