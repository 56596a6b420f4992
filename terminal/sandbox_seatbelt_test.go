package terminal

import (
	"strings"
	"testing"
)

// TestSeatbeltProfile: the macOS profile states the policy: writes (and
// metadata changes) only in the writable folders, hidden places neither
// read nor written, signals within the sandbox, and no network but the
// loopback unless granted; paths are quoted for SBPL and named by their
// /private form too.
func TestSeatbeltProfile(t *testing.T) {
	t.Parallel()
	p := seatbeltProfile(seatbeltPolicy{Writable: []string{"/Users/u/ws", "/tmp", `/Users/u/we"ird\dir`, "relative"},
		Hidden: []string{"/Users/u/.ssh", "/Users/u/.hermes"}})
	for _, want := range []string{
		"(version 1)", "(deny file-write*)", `(subpath "/Users/u/ws")`, `(subpath "/private/tmp")`, `(subpath "/Users/u/we\"ird\\dir")`,
		"(deny file-read* file-write*\n", `(subpath "/Users/u/.ssh")`, `(subpath "/Users/u/.hermes")`,
		"(deny signal)", "(allow signal (target same-sandbox))", "(deny network*)", `(allow network* (local ip "localhost:*"))`,
		`(allow network* (remote unix-socket (subpath "/Users/u/ws")))`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "relative") {
		t.Errorf("a relative path got into the profile:\n%s", p)
	}
	if strings.Count(p, "(") != strings.Count(p, ")") {
		t.Errorf("unbalanced parentheses:\n%s", p)
	}
	// The session's scratch folder inside the hidden sessions' folder is
	// allowed again after the deny.
	nested := seatbeltProfile(seatbeltPolicy{Writable: []string{"/Users/u/ws", "/Users/u/run/s-1/scratch"}, Hidden: []string{"/Users/u/run", "/Users/u/.ssh"}})
	deny := strings.Index(nested, "(deny file-read* file-write*")
	again := strings.Index(nested, "(allow file-read* file-write*\n  (subpath \"/Users/u/run/s-1/scratch\")\n)")
	if deny < 0 || again < deny || strings.Contains(nested, "(allow file-read* file-write*\n  (subpath \"/Users/u/ws\")") {
		t.Errorf("the scratch folder is not allowed again after the hidden places:\n%s", nested)
	}
	granted := seatbeltProfile(seatbeltPolicy{Writable: []string{"/Users/u/ws"}, Network: true})
	if strings.Contains(granted, "(deny network*)") || strings.Contains(granted, "(deny file-read*") {
		t.Errorf("granted profile still denies the network or hides:\n%s", granted)
	}
}
