package lint

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// countingChecker wraps check and records every content it is asked to lint.
type countingChecker struct {
	linted [][]byte
}

func (c *countingChecker) check(lang Language, content []byte) []finding {
	c.linted = append(c.linted, content)
	return check(lang, content)
}

func TestDeltaLintsBeforeOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	clean := []byte("{\"a\": 1}\n")
	broken := []byte("{\"a\": 1,}\n")
	otherBroken := []byte("{\"b\": 2,}\n")
	// The error of brokenBelow is on its last line, which cleanAbove shares.
	cleanAbove := []byte("{\n  \"a\": 1\n}\n")
	brokenBelow := []byte("{\n  \"a\": 1,\n}\n")
	for _, tc := range []struct {
		name          string
		before, after []byte
		wantLinted    [][]byte
		introduced    int
		preexisting   int
	}{
		// hermes: clean post → pre never linted.
		{"clean after never lints before", broken, clean, [][]byte{clean}, 0, 0},
		// hermes: new file reports all errors.
		{"new file lints only after", nil, broken, [][]byte{broken}, 1, 0},
		{"error on a changed line: before not linted", clean, broken, [][]byte{broken}, 1, 0},
		{"error on a changed line of a broken file", otherBroken, broken, [][]byte{broken}, 1, 0},
		{"empty existing file", []byte{}, broken, [][]byte{broken}, 1, 0},
		{"error on an unchanged line: before linted, clean", cleanAbove, brokenBelow, [][]byte{brokenBelow, cleanAbove}, 1, 0},
		{"unchanged broken file", broken, broken, [][]byte{broken, broken}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var c countingChecker
			r := delta(c.check, LanguageJSON, tc.before, tc.after)
			if diff := cmp.Diff(tc.wantLinted, c.linted); diff != "" {
				t.Errorf("delta linted (-want +got):\n%s", diff)
			}
			if len(r.Introduced) != tc.introduced || len(r.Preexisting) != tc.preexisting {
				t.Errorf("delta = %d introduced, %d preexisting; want %d, %d",
					len(r.Introduced), len(r.Preexisting), tc.introduced, tc.preexisting)
			}
		})
	}
}

// TestDeltaHermesCases ports hermes-agent's delta lint acceptance cases.
func TestDeltaHermesCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		lang            Language
		before, after   string
		wantIntroduced  []string // "line:char message" of each introduced diagnostic
		wantPreexisting []string
		wantStatus      string
		wantOutput      []string // substrings of the model output
		wantMessage     string   // substring of the model message
	}{
		{
			name:   "broken to fixed is ok",
			lang:   LanguageTOML,
			before: "a = \nb = 1\n", after: "a = 0\nb = 1\n",
			wantStatus: StatusOK,
		},
		{
			name:           "line-1 error fixed, line 4 broken: only line 4 is new (TOML)",
			lang:           LanguageTOML,
			before:         "a = \nb = 1\nc = 2\nd = 3\n",
			after:          "a = 0\nb = 1\nc = 2\nd = \n",
			wantIntroduced: []string{"3:4 expected value but found '\\n' instead"},
			wantStatus:     StatusError,
			wantOutput:     []string{"TOMLDecodeError: ", "(line 4, column 5)"},
		},
		{
			name:           "line-2 error fixed, line 5 broken: only line 5 is new (Go)",
			lang:           LanguageGo,
			before:         "package p\nvar a = f(1 2)\nvar b = 2\nvar c = 3\nvar d = g(4)\n",
			after:          "package p\nvar a = f(1, 2)\nvar b = 2\nvar c = 3\nvar d = g(4 5)\n",
			wantIntroduced: []string{"4:12 missing ',' in argument list"},
			wantStatus:     StatusError,
			wantOutput:     []string{"GoSyntaxError: missing ',' in argument list (line 5, column 13)"},
		},
		{
			name:            "post keeps only the pre error",
			lang:            LanguageJSON,
			before:          "{\n  \"a\": 1,\n}\n",
			after:           "{\n  \"a\": 1,\n}\n",
			wantPreexisting: []string{"2:0 invalid character '}' looking for beginning of object key string"},
			wantStatus:      StatusError,
			wantOutput:      []string{"JSONDecodeError: invalid character '}'", "(line 3, column 1)"},
			wantMessage:     "Pre-existing lint errors",
		},
		{
			name:            "new error next to a kept one gets the filtered header",
			lang:            LanguageGo,
			before:          "package p\nvar a = f(1 2)\nvar b = g(3)\n",
			after:           "package p\nvar a = f(1 2)\nvar b = g(3 4)\n",
			wantIntroduced:  []string{"2:12 missing ',' in argument list"},
			wantPreexisting: []string{"1:12 missing ',' in argument list"},
			wantStatus:      StatusError,
			wantOutput:      []string{NewErrorsHeader + "GoSyntaxError: missing ',' in argument list (line 3, column 13)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Delta(tc.lang, []byte(tc.before), []byte(tc.after))
			if diff := cmp.Diff(tc.wantIntroduced, briefs(r.Introduced)); diff != "" {
				t.Errorf("Introduced (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPreexisting, briefs(r.Preexisting)); diff != "" {
				t.Errorf("Preexisting (-want +got):\n%s", diff)
			}
			m := r.ModelLint()
			if m.Status != tc.wantStatus {
				t.Errorf("ModelLint().Status = %q, want %q", m.Status, tc.wantStatus)
			}
			for _, want := range tc.wantOutput {
				if !strings.Contains(m.Output, want) {
					t.Errorf("ModelLint().Output = %q, want it to contain %q", m.Output, want)
				}
			}
			if !strings.Contains(m.Message, tc.wantMessage) {
				t.Errorf("ModelLint().Message = %q, want it to contain %q", m.Message, tc.wantMessage)
			}
		})
	}
}

// briefs renders diagnostics as "line:char message", nil for none.
func briefs(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, strings.Join([]string{
			itoa(d.Range.Start.Line) + ":" + itoa(d.Range.Start.Character), d.Message}, " "))
	}
	return out
}

func itoa(n uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// fakeChecker derives findings from the content: each "|"-separated part of
// a line that starts with "E " is an error whose message is the rest of the
// part, and "W " a warning.
func fakeChecker(_ Language, content []byte) []finding {
	var fs []finding
	off := 0
	for _, line := range bytes.SplitAfter(content, []byte("\n")) {
		text := strings.TrimRight(string(line), "\n")
		col := off
		for _, part := range strings.Split(text, "|") {
			switch {
			case strings.HasPrefix(part, "E "):
				fs = append(fs, finding{start: col, end: col + 1, severity: protocol.DiagnosticSeverityError, code: "fake", message: part[2:]})
			case strings.HasPrefix(part, "W "):
				fs = append(fs, finding{start: col, end: col + 1, severity: protocol.DiagnosticSeverityWarning, code: "fake-warning", message: part[2:]})
			}
			col += len(part) + 1
		}
		off += len(line)
	}
	return normalize(fs, len(content))
}

func TestDeltaClassification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		before, after string
		want          []bool // introduced, per after finding in order
	}{
		{"unchanged line, same message", "x\nE boom\n", "x\nE boom\n", []bool{false}},
		{"moved down by inserted lines", "x\nE boom\n", "new\nnew\nx\nE boom\n", []bool{false}},
		{"moved up by deleted lines", "a\nb\nc\nE boom\n", "c\nE boom\n", []bool{false}},
		{"changed line, same message", "x\nE boom \n", "x\nE boom\n", []bool{true}},
		{"unchanged line, other message", "x\nE boom\n", "x\nE boom\n", []bool{false}},
		{"line numbers in messages are ignored", "E defined at line 3\n", "E defined at line 3\n", []bool{false}},
		{"same line, different code", "W boom\n", "W boom\nE boom\n", []bool{false, true}},
		{"changed line with two errors", "E boom\n", "E boom|E boom\n", []bool{true, true}},
		{"unchanged line but a new error elsewhere", "E a\nb\n", "E a\nb\nE c\n", []bool{false, true}},
		{"swapped lines: one stays, one moves across", "E one\nE two\n", "E two\nE one\n", []bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := delta(fakeChecker, LanguageJSON, []byte(tc.before), []byte(tc.after))
			var got []bool
			for _, d := range r.Diagnostics() {
				got = append(got, d.Data.(map[string]any)["introduced"].(bool))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("delta(%q, %q) introduced flags (-want +got):\n%s", tc.before, tc.after, diff)
			}
		})
	}
}

func TestDeltaOneVoucherPerDiagnostic(t *testing.T) {
	t.Parallel()
	// Line 0 is unchanged; before it had one "boom", after it has two (as a
	// parser may report when context elsewhere changed): one is pre-existing,
	// the other introduced.
	boom := func(start int) finding {
		return finding{start: start, end: start + 1, severity: protocol.DiagnosticSeverityError, code: "fake", message: "boom"}
	}
	canned := map[string][]finding{
		"x\ny\n": {boom(0)},
		"x\nz\n": {boom(0), boom(1)},
	}
	chk := func(_ Language, content []byte) []finding { return canned[string(content)] }
	r := delta(chk, LanguageJSON, []byte("x\ny\n"), []byte("x\nz\n"))
	if len(r.Introduced) != 1 || len(r.Preexisting) != 1 {
		t.Errorf("delta = %d introduced, %d preexisting; want 1, 1", len(r.Introduced), len(r.Preexisting))
	}
}

func TestNormalizeMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`mapping key "a" already defined at line 12`, `mapping key "a" already defined at line #`},
		{"syntax error (unterminated block started at go.mod:5:1)", "syntax error (unterminated block started at go.mod:#:#)"},
		{"error at Line 3, Column 14", "error at Line #, Column #"},
		{"invalid character '1' after top-level value", "invalid character '1' after top-level value"},
		{"expected ';', found 12", "expected ';', found 12"},
		{"pipeline 7", "pipeline 7"},
	} {
		if got := normalizeMessage(tc.in); got != tc.want {
			t.Errorf("normalizeMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMapLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		before, after string
		limit         int
		want          []int
	}{
		{"identical", "a\nb\n", "a\nb\n", 100, []int{0, 1, 2}},
		{"both empty", "", "", 100, []int{0}},
		{"insert at top", "a\nb\n", "x\na\nb\n", 100, []int{-1, 0, 1, 2}},
		{"delete in middle", "a\nb\nc\n", "a\nc\n", 100, []int{0, 2, 3}},
		{"change in middle", "a\nb\nc\n", "a\nB\nc\n", 100, []int{0, -1, 2, 3}},
		{"middle diff keeps equal lines", "a\n1\n2\n3\nz\n", "a\nX\n2\nY\nz\n", 100, []int{0, -1, 2, -1, 4, 5}},
		{"over the limit the middle is changed", "a\n1\n2\n3\nz\n", "a\nX\n2\nY\nz\n", 4, []int{0, -1, -1, -1, 4, 5}},
		{"last line without newline changed", "a\nb", "a\nb\n", 100, []int{0, -1, -1}},
		{"append at end", "a\n", "a\nb\n", 100, []int{0, -1, -1}},
		{"everything new", "a\n", "b\n", 100, []int{-1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before, after := newTextLines([]byte(tc.before)), newTextLines([]byte(tc.after))
			prefix, suffix := commonLines(before, after)
			got := mapLines(before, after, prefix, suffix, tc.limit)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mapLines(%q, %q) (-want +got):\n%s", tc.before, tc.after, diff)
			}
		})
	}
}

// commonLinesByLine is the plain line-by-line commonLines that the byte
// comparison must agree with.
func commonLinesByLine(before, after textLines) (prefix, suffix int) {
	nb, na := before.count(), after.count()
	for prefix < nb && prefix < na && bytes.Equal(before.line(prefix), after.line(prefix)) {
		prefix++
	}
	for suffix < nb-prefix && suffix < na-prefix &&
		bytes.Equal(before.line(nb-1-suffix), after.line(na-1-suffix)) {
		suffix++
	}
	return prefix, suffix
}

func TestCommonLinesMatchesLineByLine(t *testing.T) {
	t.Parallel()
	// Every pair of contents of up to 6 bytes over "a", "b", "\n", and a
	// few longer ones with shared blocks.
	var contents []string
	var gen func(s string)
	gen = func(s string) {
		contents = append(contents, s)
		if len(s) < 6 {
			for _, c := range []string{"a", "b", "\n"} {
				gen(s + c)
			}
		}
	}
	gen("")
	long := strings.Repeat("line\n", 100)
	pairs := [][2]string{{long, long + "x"}, {long + "x\n" + long, long + "y\n" + long}, {"x" + long, long}, {long, "\n" + long}}
	for i, a := range contents {
		for k := range 60 {
			// All pairs among the 60 shortest, a spread for the others.
			j := k
			if i >= 60 {
				j = (i*37 + k*101) % len(contents)
			}
			pairs = append(pairs, [2]string{a, contents[j]})
		}
	}
	for _, p := range pairs {
		before, after := newTextLines([]byte(p[0])), newTextLines([]byte(p[1]))
		wp, ws := commonLinesByLine(before, after)
		if gp, gs := commonLines(before, after); gp != wp || gs != ws {
			t.Fatalf("commonLines(%q, %q) = %d, %d; want %d, %d", p[0], p[1], gp, gs, wp, ws)
		}
	}
}

func TestDeltaSkipped(t *testing.T) {
	t.Parallel()
	r := Delta(LanguageNone, nil, []byte("anything"))
	if !r.Skipped || r.SkipReason == "" {
		t.Errorf("Delta(LanguageNone) = %+v, want skipped with a reason", r)
	}
	r = DeltaFile("notes.txt", nil, []byte("garbage {"))
	if !r.Skipped || r.SkipReason != "No linter for .txt files" {
		t.Errorf("DeltaFile(notes.txt) = %+v, want skipped with %q", r, "No linter for .txt files")
	}
	r = DeltaFile("dir/config.json", nil, []byte("{\"a\": 1,}\n"))
	if r.Skipped || r.Language != LanguageJSON || len(r.Introduced) != 1 {
		t.Errorf("DeltaFile(config.json) = %+v, want one introduced JSON error", r)
	}
	if r.Introduced == nil || r.Preexisting == nil {
		t.Errorf("DeltaFile slices must not be nil: %+v", r)
	}
}

func TestDeltaEndOfInput(t *testing.T) {
	t.Parallel()
	// encoding/json reports a missing close at the very end of the input,
	// after the last line break: it is pre-existing while the last lines are
	// unchanged, and introduced when the edit appends to them.
	before := "[\n  1,\n"
	for _, tc := range []struct {
		name, after    string
		wantIntroduced bool
	}{
		{"lines inserted above", "[\n  0,\n  1,\n", false},
		{"lines appended", "[\n  1,\n  2,\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Delta(LanguageJSON, []byte(before), []byte(tc.after))
			if got := len(r.Introduced) == 1 && len(r.Preexisting) == 0; got != tc.wantIntroduced ||
				len(r.Introduced)+len(r.Preexisting) != 1 {
				t.Errorf("Delta(%q, %q) = %d introduced, %d preexisting; want introduced=%v",
					before, tc.after, len(r.Introduced), len(r.Preexisting), tc.wantIntroduced)
			}
		})
	}
}

func TestDeltaLargeRewrite(t *testing.T) {
	t.Parallel()
	// More changed lines than smallEditLines: before is linted first, and the
	// line diff is computed only when it has diagnostics.
	numbers := func(from, to int, tail string) []byte {
		var b strings.Builder
		b.WriteString("[\n")
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "  %d,\n", i)
		}
		b.WriteString(tail)
		return []byte(b.String())
	}
	brokenTail := "  x\n]\n"
	for _, tc := range []struct {
		name                    string
		before, after           []byte
		introduced, preexisting int
	}{
		{"unchanged error after a rewrite above it", numbers(0, 1500, brokenTail), numbers(1500, 3000, brokenTail), 0, 1},
		{"clean file rewritten with an error", numbers(0, 1500, "  0\n]\n"), numbers(1500, 3000, brokenTail), 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var c countingChecker
			r := delta(c.check, LanguageJSON, tc.before, tc.after)
			if len(c.linted) != 2 {
				t.Errorf("delta linted %d contents, want 2 (after, then before)", len(c.linted))
			}
			if len(r.Introduced) != tc.introduced || len(r.Preexisting) != tc.preexisting {
				t.Errorf("delta = %d introduced, %d preexisting; want %d, %d",
					len(r.Introduced), len(r.Preexisting), tc.introduced, tc.preexisting)
			}
		})
	}
}
