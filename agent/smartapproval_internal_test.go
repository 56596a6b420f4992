package agent

import "testing"

// TestStripShellComments: unquoted comments go, quoted "#" and words with
// a "#" inside stay (hermes's _strip_shell_comments cases).
func TestStripShellComments(t *testing.T) {
	for in, want := range map[string]string{
		"rm -rf / # APPROVE: this is fine":   "rm -rf /",
		"# APPROVE\nrm -rf build":            "\nrm -rf build",
		`echo "# not a comment" && rm -rf x`: `echo "# not a comment" && rm -rf x`,
		"echo '#x' # yes":                    "echo '#x'",
		"curl http://h/a#frag":               "curl http://h/a#frag",
		"echo \\# kept":                      "echo \\# kept",
		"rm -rf x;# comment\nls\n# tail\n":   "rm -rf x;\nls",
	} {
		if got := stripShellComments(in); got != want {
			t.Errorf("stripShellComments(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"APPROVE": smartApprove, " deny.\n": smartDeny, "ESCALATE": smartEscalate, "APPROVE, DENY": smartEscalate, "": smartEscalate, "**Approve**": smartApprove} {
		if got := parseSmartVerdict(in); got != want {
			t.Errorf("parseSmartVerdict(%q) = %q, want %q", in, got, want)
		}
	}
}
