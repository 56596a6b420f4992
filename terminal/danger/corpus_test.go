package danger

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// corpusCase is one command of a testdata corpus: name is the file's name
// in the archive.
type corpusCase struct {
	name, cmd string
}

// readCorpus reads testdata/<file>: one command per archive file, its
// final newline dropped.
func readCorpus(t testing.TB, file string) []corpusCase {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusCase
	for _, f := range ar.Files {
		out = append(out, corpusCase{name: f.Name, cmd: strings.TrimSuffix(string(f.Data), "\n")})
	}
	return out
}

// TestDisguisedCorpus: every disguised dangerous command of
// testdata/disguised.txtar asks (or is refused by the floor), and lists the
// key its name says — the class it belongs to caught it.
func TestDisguisedCorpus(t *testing.T) {
	cases := readCorpus(t, "disguised.txtar")
	if len(cases) < 100 {
		t.Fatalf("only %d disguised commands", len(cases))
	}
	classes := map[string]int{}
	for _, c := range cases {
		class, key, ok := strings.Cut(c.name, ": ")
		if !ok {
			t.Fatalf("corpus name %q is not \"class: key\"", c.name)
		}
		classes[class]++
		v := Check(c.cmd)
		if !v.Dangerous || !v.Has(key) {
			t.Errorf("%s: Check(%q) = %q (hardline %v), want it to ask with %q", class, c.cmd, v.Keys(), v.Hardline, key)
		}
	}
	for _, class := range []string{"word", "eval", "pipe", "interp", "awk", "sed", "option", "written", "env",
		"push", "discard", "secret", "perm", "wipe", "gitexec", "gitmeta", "target", "args"} {
		if classes[class] == 0 {
			t.Errorf("the corpus has no %s case", class)
		}
	}
}

// TestOrdinaryCorpus: every ordinary command of testdata/ordinary.txtar
// runs without asking.
func TestOrdinaryCorpus(t *testing.T) {
	cases := readCorpus(t, "ordinary.txtar")
	if len(cases) < 50 {
		t.Fatalf("only %d ordinary commands", len(cases))
	}
	for _, c := range cases {
		if v := Check(c.cmd); v.Dangerous {
			t.Errorf("%s: Check(%q) = %q, want it to run without asking", c.name, c.cmd, v.Keys())
		}
	}
}

// TestWorkloadFalsePositives measures how often an ordinary session's
// commands (testdata/workload.txt, one per line, as coding agents run them)
// ask. Every command there is harmless, so each that asks is a false
// positive; the rate must stay under 3 % for default mode to stay usable
// (docs/benchmarks.md reports it).
func TestWorkloadFalsePositives(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "workload.txt"))
	if err != nil {
		t.Fatal(err)
	}
	total, asks := 0, 0
	var asked []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		total++
		if v := Check(line); v.Dangerous {
			asks++
			asked = append(asked, fmt.Sprintf("%q: %q", line, v.Keys()))
		}
	}
	if total < 200 {
		t.Fatalf("only %d workload commands", total)
	}
	rate := 100 * float64(asks) / float64(total)
	t.Logf("false positives: %d of %d ordinary commands ask (%.1f %%)\n%s", asks, total, rate, strings.Join(asked, "\n"))
	if rate >= 3 {
		t.Errorf("false positives: %d of %d (%.1f %%), want under 3 %%:\n%s", asks, total, rate, strings.Join(asked, "\n"))
	}
}
