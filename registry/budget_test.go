package registry

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func newStore(dir string) *resultStore {
	return &resultStore{dir: dir, preview: DefaultPreviewChars, log: slog.New(slog.DiscardHandler)}
}

// savedPath returns the path of a <persisted-output> block, or "".
func savedPath(msg string) string {
	_, rest, ok := strings.Cut(msg, "Full output saved to: ")
	if !ok {
		return ""
	}
	path, _, _ := strings.Cut(rest, "\n")
	return path
}

func TestSafeResultFileName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 200)
	for _, tc := range []struct {
		id         string
		want       string // exact name, or "" to check only the shape
		wantPrefix string
	}{
		{id: "call_abc123", want: "call_abc123.txt"},
		{id: "tc-1.2_x", want: "tc-1.2_x.txt"},
		{id: "", want: "tool_result.txt"},
		{id: "../../x", wantPrefix: "x_"},
		{id: "/etc/passwd", wantPrefix: "etc_passwd_"},
		{id: "a/b", wantPrefix: "a_b_"},
		{id: "a\x00b", wantPrefix: "a_b_"},
		{id: "..", wantPrefix: "tool_result_"},
		{id: "日本語", wantPrefix: "tool_result_"},
		{id: "$(whoami)", wantPrefix: "whoami_"},
		{id: long, wantPrefix: strings.Repeat("a", 120) + "_"},
		{id: "C:\\Windows\\x", wantPrefix: "C_Windows_x_"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			got := safeResultFileName(tc.id)
			if tc.want != "" && got != tc.want {
				t.Errorf("safeResultFileName(%q) = %q, want %q", tc.id, got, tc.want)
			}
			if tc.wantPrefix != "" {
				if !strings.HasPrefix(got, tc.wantPrefix) || len(got) != len(tc.wantPrefix)+12+len(".txt") {
					t.Errorf("safeResultFileName(%q) = %q, want %q + 12 hex digits + .txt", tc.id, got, tc.wantPrefix)
				}
			}
			checkSafeName(t, tc.id, got)
		})
	}
	if safeResultFileName("a/b") == safeResultFileName("a_b") {
		t.Errorf("sanitised and literal ids collide: %q", safeResultFileName("a/b"))
	}
}

func checkSafeName(t *testing.T, id, got string) {
	t.Helper()
	if filepath.Base(got) != got || strings.ContainsAny(got, "/\\\x00") || strings.HasPrefix(got, ".") || !filepath.IsLocal(got) {
		t.Fatalf("safeResultFileName(%q) = %q is not a single safe file name", id, got)
	}
	if stem := strings.TrimSuffix(got, ".txt"); len(stem) > maxResultFileStem+13 {
		t.Fatalf("safeResultFileName(%q) = %q: stem too long", id, got)
	}
}

func FuzzSafeResultFileName(f *testing.F) {
	for _, s := range []string{"../../x", "/etc/passwd", "a/b", "a\x00b", "..", ".", "", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, id string) {
		name := safeResultFileName(id)
		checkSafeName(t, id, name)
		if p := filepath.Join(dir, name); filepath.Dir(p) != dir {
			t.Fatalf("safeResultFileName(%q) = %q escapes the results dir", id, name)
		}
	})
}

func TestGeneratePreview(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		content  string
		max      int
		want     string
		wantMore bool
	}{
		{"short unchanged", "short result", 2000, "short result", false},
		{"empty", "", 1500, "", false},
		{"exact boundary", strings.Repeat("x", 1500), 1500, strings.Repeat("x", 1500), false},
		{"cut at newline past halfway", strings.Repeat("a", 1500) + "\n" + strings.Repeat("b", 600), 2000, strings.Repeat("a", 1500) + "\n", true},
		{"early newline ignored", strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 3000), 2000, strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 1899), true},
		{"counts characters not bytes", strings.Repeat("日", 10), 4, strings.Repeat("日", 4), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, more := generatePreview(tc.content, tc.max)
			if got != tc.want || more != tc.wantMore {
				t.Errorf("generatePreview(%d chars, %d) = (%d chars, %v), want (%d chars, %v)",
					utf8.RuneCountInString(tc.content), tc.max, utf8.RuneCountInString(got), more, utf8.RuneCountInString(tc.want), tc.wantMore)
			}
		})
	}
}

func TestPersistedMessage(t *testing.T) {
	t.Parallel()
	msg := persistedMessage("read_file", "first 100 chars...", true, 50_000, "/r/test123.txt", 0)
	want := "<persisted-output>\n" +
		"This tool result was too large (50,000 characters, 48.8 KB).\n" +
		"Full output saved to: /r/test123.txt\n" +
		"Use the read_file tool with offset and limit to access specific sections of this output.\n\n" +
		"Preview (first 18 chars):\n" +
		"first 100 chars...\n...\n" +
		"</persisted-output>"
	if msg != want {
		t.Errorf("persistedMessage =\n%s\nwant\n%s", msg, want)
	}
	if got := persistedMessage("read_file", "all", false, 3, "/r/x.txt", 0); strings.Contains(got, "\n...\n") {
		t.Errorf("persistedMessage without more = %q, want no ellipsis line", got)
	}
	if got := persistedMessage("read_file", "x", true, 2_000_000, "/r/big.txt", 0); !strings.Contains(got, "(2,000,000 characters, 1.9 MB)") {
		t.Errorf("persistedMessage for 2M chars = %q, want size in MB", got)
	}
	if got := persistedMessage("open_saved", "x", true, 5_000, "/r/y.txt", 0); !strings.Contains(got, "\nUse the open_saved tool with offset and limit to access specific sections of this output.\n") ||
		strings.Contains(got, "read_file") {
		t.Errorf("persistedMessage with reader open_saved = %q, want it to name open_saved only", got)
	}
}

func TestPersist(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(dir)
	for _, tc := range []struct {
		name          string
		content       string
		threshold     int
		wantPersisted bool
		wantSame      bool
	}{
		{"below threshold unchanged", "small result", 50_000, false, true},
		{"empty unchanged even at zero", "", 0, false, true},
		{"unlimited never persisted", strings.Repeat("x", 200_000), Unlimited, false, true},
		{"above threshold persisted", strings.Repeat("x", 60_000), 30_000, true, false},
		{"threshold zero forces persistence", strings.Repeat("long line\n", 400), 0, true, false},
		{"a note would be bigger than short content", "even short content", 0, false, true},
		{"a note would be bigger than content just over the preview", strings.Repeat("y", DefaultPreviewChars+100), 0, false, true},
		{"unicode counted in characters", strings.Repeat("日本語テスト ", 10_000), 30_000, true, false},
		{"multibyte under threshold in characters", strings.Repeat("é", 20_000), 30_000, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id := "tc_" + strings.ReplaceAll(tc.name, " ", "_")
			got, persisted := s.persist("read_file", "terminal", id, tc.content, tc.threshold)
			if persisted != tc.wantPersisted || (got == tc.content) != tc.wantSame {
				t.Fatalf("persist(%d chars, %d) persisted=%v same=%v, want %v %v", len(tc.content), tc.threshold, persisted, got == tc.content, tc.wantPersisted, tc.wantSame)
			}
			if !persisted {
				return
			}
			if utf8.RuneCountInString(got) >= utf8.RuneCountInString(tc.content) {
				t.Errorf("persist made the result bigger: %d → %d chars", utf8.RuneCountInString(tc.content), utf8.RuneCountInString(got))
			}
			path := savedPath(got)
			if filepath.Dir(path) != dir || !strings.HasPrefix(filepath.Base(path), safeResultFileName(id)[:len(safeResultFileName(id))-len(".txt")]+"_") || !strings.HasPrefix(got, persistedOutputTag) {
				t.Errorf("persist result = %q, want a persisted-output block naming a file in %s for %s", got, dir, id)
			}
			data, err := os.ReadFile(path)
			if err != nil || string(data) != tc.content {
				t.Errorf("persisted file %s: %v, content equal = %v", path, err, string(data) == tc.content)
			}
			if first, _, _ := strings.Cut(tc.content, "\n"); !strings.Contains(got, truncateRunes(first, 20)) {
				t.Errorf("persist result lacks the preview of the content")
			}
		})
	}
}

func TestPersistInlineFallback(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	content := "DISTINCTIVE_START" + strings.Repeat("x", 60_000)
	noReader := t.TempDir()
	for _, tc := range []struct{ dir, reader string }{
		{"", "read_file"}, // no dir
		{filepath.Join(blocker, "sub"), "read_file"}, // a dir that cannot be created
		{noReader, ""}, // no tool could read the file back
	} {
		got, persisted := newStore(tc.dir).persist(tc.reader, "terminal", "tc_789", content, 30_000)
		want := truncateRunes(content, 1500) + "\n\n[Truncated: tool response was 60,017 chars. Full output could not be saved to sandbox.]"
		if persisted || got != want {
			t.Errorf("persist with dir %q, reader %q = (%.80q…, %v), want inline truncation", tc.dir, tc.reader, got, persisted)
		}
	}
	if entries, err := os.ReadDir(noReader); err != nil || len(entries) != 0 {
		t.Errorf("results dir without a reader holds %d files (%v), want none", len(entries), err)
	}
}

func TestEnforceTurnBudget(t *testing.T) {
	t.Parallel()
	mk := func(contents ...string) ([]*Call, []Outcome) { // nothing pinned
		cs := make([]*Call, len(contents))
		outs := make([]Outcome, len(contents))
		for i, c := range contents {
			cs[i] = &Call{ID: "t" + string(rune('0'+i))}
			outs[i] = Outcome{Content: c}
		}
		return cs, outs
	}
	persisted := func(outs []Outcome) (n int) {
		for _, o := range outs {
			if strings.Contains(o.Content, persistedOutputTag) {
				n++
			}
		}
		return n
	}
	total := func(outs []Outcome) (n int) {
		for _, o := range outs {
			n += utf8.RuneCountInString(o.Content)
		}
		return n
	}

	t.Run("under budget unchanged", func(t *testing.T) {
		t.Parallel()
		cs, outs := mk("small", "also small")
		newStore(t.TempDir()).enforceTurnBudget("read_file", cs, make([]bool, len(cs)), outs, 200_000)
		if outs[0].Content != "small" || outs[1].Content != "also small" {
			t.Errorf("outcomes changed under budget: %+v", outs)
		}
	})
	t.Run("80K plus 130K persists the 130K one", func(t *testing.T) {
		t.Parallel()
		cs, outs := mk(strings.Repeat("a", 80_000), strings.Repeat("b", 130_000))
		newStore(t.TempDir()).enforceTurnBudget("read_file", cs, make([]bool, len(cs)), outs, 200_000)
		if !strings.HasPrefix(outs[1].Content, persistedOutputTag) || !outs[1].Persisted {
			t.Errorf("130K result not persisted: %.60q", outs[1].Content)
		}
		if outs[0].Content != strings.Repeat("a", 80_000) {
			t.Errorf("80K result changed although the budget was met")
		}
	})
	t.Run("already persisted skipped", func(t *testing.T) {
		t.Parallel()
		already := persistedOutputTag + "\nalready persisted\n" + persistedOutputCloseTag
		cs, outs := mk(already, strings.Repeat("x", 250_000))
		newStore(t.TempDir()).enforceTurnBudget("read_file", cs, make([]bool, len(cs)), outs, 200_000)
		if outs[0].Content != already {
			t.Errorf("already persisted result changed: %q", outs[0].Content)
		}
		if !strings.HasPrefix(outs[1].Content, persistedOutputTag) {
			t.Errorf("250K result not persisted")
		}
	})
	t.Run("six 42K results persist at least two", func(t *testing.T) {
		t.Parallel()
		cs, outs := mk(strings.Repeat("x", 42_000), strings.Repeat("x", 42_000), strings.Repeat("x", 42_000),
			strings.Repeat("x", 42_000), strings.Repeat("x", 42_000), strings.Repeat("x", 42_000))
		newStore(t.TempDir()).enforceTurnBudget("read_file", cs, make([]bool, len(cs)), outs, 200_000)
		if n := persisted(outs); n < 2 {
			t.Errorf("persisted %d results, want at least 2", n)
		}
		if n := total(outs); n > 200_000 {
			t.Errorf("total after enforcement = %d, want ≤ 200000", n)
		}
	})
	t.Run("no dir truncates inline", func(t *testing.T) {
		t.Parallel()
		cs, outs := mk(strings.Repeat("x", 250_000))
		newStore("").enforceTurnBudget("read_file", cs, make([]bool, len(cs)), outs, 200_000)
		if !strings.Contains(outs[0].Content, "[Truncated: tool response was 250,000 chars.") || outs[0].Persisted {
			t.Errorf("no-dir enforcement = %.80q (persisted %v), want inline truncation", outs[0].Content, outs[0].Persisted)
		}
	})
	t.Run("no reader truncates inline and writes nothing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cs, outs := mk(strings.Repeat("x", 250_000))
		newStore(dir).enforceTurnBudget("", cs, make([]bool, len(cs)), outs, 200_000)
		if !strings.Contains(outs[0].Content, "[Truncated: tool response was 250,000 chars.") || outs[0].Persisted {
			t.Errorf("enforcement without a reader = %.80q (persisted %v), want inline truncation", outs[0].Content, outs[0].Persisted)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("results dir holds %d files, want none without a reader", len(entries))
		}
	})
	t.Run("pinned results are never replaced", func(t *testing.T) {
		t.Parallel()
		cs, outs := mk(strings.Repeat("p", 150_000), strings.Repeat("q", 120_000), strings.Repeat("r", 60_000))
		pinned := []bool{true, true, false}
		newStore(t.TempDir()).enforceTurnBudget("read_file", cs, pinned, outs, 200_000)
		if outs[0].Persisted || outs[1].Persisted || !outs[2].Persisted {
			t.Errorf("persisted = %v %v %v, want only the unpinned result saved", outs[0].Persisted, outs[1].Persisted, outs[2].Persisted)
		}
	})
	t.Run("ids default to budget index", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cs, outs := mk(strings.Repeat("x", 5000))
		cs[0].ID = ""
		newStore(dir).enforceTurnBudget("read_file", cs, make([]bool, len(cs)), outs, 100)
		if m, _ := filepath.Glob(filepath.Join(dir, "budget_0_*.txt")); len(m) != 1 {
			t.Errorf("budget files for an id-less call = %v, want one budget_0_<random>.txt", m)
		}
	})
}

func TestBudgetForContextWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tokens           int
		wantRes, wantTur int
	}{
		{0, 100_000, 200_000},
		{-5, 100_000, 200_000},
		{1_000_000, 100_000, 200_000},
		{65_536, 39_321, 78_643},
		{8_000, 8_000, 16_000},
	} {
		r, tu := BudgetForContextWindow(tc.tokens)
		if r != tc.wantRes || tu != tc.wantTur {
			t.Errorf("BudgetForContextWindow(%d) = (%d, %d), want (%d, %d)", tc.tokens, r, tu, tc.wantRes, tc.wantTur)
		}
	}
}

// Two sessions (and two processes on one session) that save a result under
// the same call id at the same time each keep their own file.
func TestPersistUniqueAcrossSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sessions := []string{"sess_a", "sess_b", "sess_a", "", "sess_b"}
	paths := make([]string, len(sessions))
	contents := make([]string, len(sessions))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, sess := range sessions {
		contents[i] = fmt.Sprintf("result %d of %s\n", i, sess) + strings.Repeat("line\n", 20_000)
		s := newStore(dir)
		s.session = sess
		wg.Go(func() {
			<-start
			got, persisted := s.persist("read_file", "terminal", "call_1", contents[i], 100_000)
			if !persisted {
				t.Errorf("persist %d (%s) = %.80q, want it saved", i, sess, got)
			}
			paths[i] = savedPath(got)
		})
	}
	close(start)
	wg.Wait()
	seen := map[string]int{}
	for i, p := range paths {
		if j, dup := seen[p]; dup {
			t.Errorf("results %d and %d were both saved as %s", j, i, p)
		}
		seen[p] = i
		if b, err := os.ReadFile(p); err != nil || string(b) != contents[i] {
			t.Errorf("%s: %v, holds result %d = %v", p, err, i, string(b) == contents[i])
		}
		if want := sessions[i] + "_call_1_"; sessions[i] != "" && !strings.HasPrefix(filepath.Base(p), want) {
			t.Errorf("result %d saved as %s, want a name starting %s", i, filepath.Base(p), want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(sessions) {
		t.Errorf("results dir holds %d files, want %d", len(entries), len(sessions))
	}
}

// A taken name is never overwritten: the next suffix is tried, and when
// every name is taken the result is truncated inline instead.
func TestPersistNeverOverwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	suffixes := []string{"aaaaaaaa", "aaaaaaaa", "bbbbbbbb"}
	s := newStore(dir)
	s.session = "sess_x"
	s.suffix = func() string {
		next := suffixes[0]
		if len(suffixes) > 1 {
			suffixes = suffixes[1:]
		}
		return next
	}
	first := "first\n" + strings.Repeat("1", 10_000)
	second := "second\n" + strings.Repeat("2", 10_000)
	got1, ok1 := s.persist("read_file", "terminal", "call_1", first, 100)
	got2, ok2 := s.persist("read_file", "terminal", "call_1", second, 100)
	if !ok1 || !ok2 {
		t.Fatalf("persisted = %v, %v; want both saved", ok1, ok2)
	}
	p1, p2 := savedPath(got1), savedPath(got2)
	if want := filepath.Join(dir, "sess_x_call_1_aaaaaaaa.txt"); p1 != want {
		t.Errorf("first result saved as %s, want %s", p1, want)
	}
	if want := filepath.Join(dir, "sess_x_call_1_bbbbbbbb.txt"); p2 != want {
		t.Errorf("second result saved as %s, want %s (the taken name skipped)", p2, want)
	}
	// Only "bbbbbbbb" is left to try, and it is taken.
	got3, ok3 := s.persist("read_file", "terminal", "call_1", "third\n"+strings.Repeat("3", 10_000), 100)
	if ok3 || !strings.Contains(got3, "[Truncated: tool response was 10,006 chars.") {
		t.Errorf("persist with every name taken = (%.80q, %v), want inline truncation", got3, ok3)
	}
	for p, want := range map[string]string{p1: first, p2: second} {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s after later saves: %v, content kept = %v", p, err, string(b) == want)
		}
	}
}

func TestResultFileName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		session, id, want string
	}{
		{"sess_0123", "call_1", "sess_0123_call_1_00ff00ff.txt"},
		{"", "call_1", "call_1_00ff00ff.txt"},
		{"sess/../x", "../y", strings.TrimSuffix(safeResultFileName("sess/../x"), ".txt") + "_" + strings.TrimSuffix(safeResultFileName("../y"), ".txt") + "_00ff00ff.txt"},
	} {
		s := newStore("")
		s.session = tc.session
		if got := s.name(tc.id, "00ff00ff"); got != tc.want {
			t.Errorf("name(session %q, id %q) = %q, want %q", tc.session, tc.id, got, tc.want)
		}
	}
	// The longest session and call ids still give one safe name of at most
	// 255 bytes (NAME_MAX), the session part capped with a hash.
	s := newStore("")
	s.session = strings.Repeat("s", 500)
	got := s.name(strings.Repeat("c", 500), "00ff00ff")
	checkSafeName(t, "long", strings.TrimSuffix(got, "_00ff00ff.txt")[maxSessionFileStem+1:]+".txt")
	if len(got) > 255 || filepath.Base(got) != got {
		t.Errorf("name for long ids = %q (%d bytes), want one name of ≤ 255 bytes", got, len(got))
	}
	other := newStore("")
	other.session = strings.Repeat("s", 499) + "t"
	if other.name("c", "0") == s.name("c", "0") {
		t.Errorf("two long session ids with a common prefix give the same name")
	}
}

// budgetCase is a batch for the turn budget: results by tool name.
type budgetResult struct {
	tool    string
	content string
}

func repeatResults(n int, tool, content string) []budgetResult {
	out := make([]budgetResult, n)
	for i := range out {
		out[i] = budgetResult{tool, content}
	}
	return out
}

// runTurnBudget applies the turn budget to results in a fresh results dir
// and checks what must hold for every batch: no result grows, the batch
// does not grow, the results saved are the largest of those that may be
// saved, the last one was needed, and one file exists per saved result
// (none for notes that were not used). It returns the outcomes, the sizes
// before and the dir.
func runTurnBudget(t *testing.T, results []budgetResult, budget int) ([]Outcome, []int) {
	t.Helper()
	dir := t.TempDir()
	calls := make([]*Call, len(results))
	outs := make([]Outcome, len(results))
	pinned := make([]bool, len(results))
	before := make([]int, len(results))
	totalBefore := 0
	for i, r := range results {
		calls[i] = &Call{ID: fmt.Sprintf("call_%d", i), Name: r.tool}
		pinned[i] = r.tool == "read_file" // what Run derives from read_file's MaxResultChars: Unlimited
		outs[i] = Outcome{Content: r.content}
		before[i] = utf8.RuneCountInString(r.content)
		totalBefore += before[i]
	}
	newStore(dir).enforceTurnBudget("read_file", calls, pinned, outs, budget)

	totalAfter, saved := 0, 0
	last := -1 // the saved result enforcement reached last
	for i, o := range outs {
		after := utf8.RuneCountInString(o.Content)
		totalAfter += after
		changed := o.Content != results[i].content
		if after > before[i] || (changed && after == before[i]) {
			t.Errorf("result %d (%s) went from %d to %d characters", i, results[i].tool, before[i], after)
		}
		if changed != o.Persisted {
			t.Errorf("result %d: changed=%v but Persisted=%v", i, changed, o.Persisted)
		}
		if !changed {
			continue
		}
		saved++
		if results[i].tool == "read_file" {
			t.Errorf("read_file result %d was replaced", i)
		}
		if p := savedPath(o.Content); p == "" || filepath.Dir(p) != dir {
			t.Errorf("result %d replaced by %.100q, want a note naming a file in %s", i, o.Content, dir)
		} else if b, err := os.ReadFile(p); err != nil || string(b) != results[i].content {
			t.Errorf("saved file %s: %v, holds the result = %v", p, err, string(b) == results[i].content)
		}
		if last < 0 || before[i] < before[last] || before[i] == before[last] && i > last {
			last = i
		}
	}
	if totalAfter > totalBefore {
		t.Errorf("the batch grew from %d to %d characters", totalBefore, totalAfter)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != saved {
		t.Errorf("results dir holds %d files for %d saved results", len(entries), saved)
	}
	// Largest first: no result left inline is larger than one saved.
	for i, o := range outs {
		if o.Persisted || results[i].tool == "read_file" || strings.Contains(results[i].content, persistedOutputTag) {
			continue
		}
		if last >= 0 && before[i] > before[last] {
			t.Errorf("result %d (%d chars) kept while result %d (%d chars) was saved", i, before[i], last, before[last])
		}
	}
	// Stop once under budget: without the last save the batch was over it.
	if last >= 0 {
		if without := totalAfter - utf8.RuneCountInString(outs[last].Content) + before[last]; without <= budget {
			t.Errorf("result %d was saved although the batch fitted without it (%d ≤ %d)", last, without, budget)
		}
	}
	return outs, before
}

func TestEnforceTurnBudgetNeverBigger(t *testing.T) {
	t.Parallel()
	lines := func(n int) string { return strings.Repeat("0123456789 abcdefghij\n", n/22+1)[:n] }
	already := persistedOutputTag + "\nsaved before\n" + persistedOutputCloseTag
	for _, tc := range []struct {
		name      string
		results   []budgetResult
		budget    int
		wantSaved []int // indices of the results saved
		someSaved bool  // instead of wantSaved: at least one, which ones does not matter
		wantFits  bool
	}{
		{"under budget", []budgetResult{{"terminal", lines(50_000)}, {"terminal", lines(90_000)}}, 200_000, nil, false, true},
		{"1000 small results over budget stay as they are", repeatResults(1000, "terminal", lines(250)), 200_000, nil, false, false},
		{"results just over the preview stay as they are", repeatResults(150, "terminal", strings.Repeat("y", 1_600)), 200_000, nil, false, false},
		{"one large among many small: only the large one is saved",
			append([]budgetResult{{"terminal", lines(150_000)}}, repeatResults(300, "terminal", lines(200))...), 200_000, []int{0}, false, true},
		{"largest first, then stop", []budgetResult{{"terminal", lines(60_000)}, {"terminal", lines(130_000)}, {"terminal", lines(80_000)}},
			200_000, []int{1}, false, true},
		{"equal 5K results: as many as needed", repeatResults(50, "terminal", lines(5_000)), 200_000, nil, true, true},
		{"read_file is pinned", []budgetResult{{"read_file", lines(150_000)}, {"terminal", lines(60_000)}}, 200_000, []int{1}, false, true},
		{"only read_file over budget: unchanged", []budgetResult{{"read_file", lines(120_000)}, {"read_file", lines(120_000)}}, 200_000, nil, false, false},
		{"already saved results are skipped", []budgetResult{{"terminal", already}, {"terminal", lines(250_000)}}, 200_000, []int{1}, false, true},
		{"small budget, mixed sizes", []budgetResult{{"terminal", lines(3_000)}, {"terminal", lines(900)}, {"terminal", lines(10_000)}, {"web_search", lines(1_700)}},
			1_000, []int{0, 2}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			outs, _ := runTurnBudget(t, tc.results, tc.budget)
			var saved []int
			total := 0
			for i, o := range outs {
				if o.Persisted {
					saved = append(saved, i)
				}
				total += utf8.RuneCountInString(o.Content)
			}
			switch {
			case tc.someSaved && len(saved) == 0:
				t.Errorf("no result saved, want some")
			case !tc.someSaved && !slices.Equal(saved, tc.wantSaved):
				t.Errorf("saved results %v, want %v", saved, tc.wantSaved)
			}
			if fits := total <= tc.budget; fits != tc.wantFits {
				t.Errorf("batch of %d characters fits the %d budget = %v, want %v", total, tc.budget, fits, tc.wantFits)
			}
		})
	}
}

// Random batches: the invariants runTurnBudget checks hold for any mix of
// sizes and budgets.
func TestEnforceTurnBudgetNeverBiggerRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 3))
	var text strings.Builder // results are slices of one random text with short lines
	for text.Len() < 170_000 {
		if rng.IntN(40) == 0 {
			text.WriteByte('\n')
		} else {
			text.WriteByte(byte('a' + rng.IntN(26)))
		}
	}
	tools := []string{"terminal", "read_file", "search_files", "web_search"}
	for n := range 40 {
		var results []budgetResult
		for range 1 + rng.IntN(40) {
			var size int
			switch rng.IntN(4) {
			case 0:
				size = rng.IntN(400)
			case 1:
				size = 1_300 + rng.IntN(1_200) // around the preview, where a note may or may not be shorter
			case 2:
				size = 2_500 + rng.IntN(20_000)
			default:
				size = 20_000 + rng.IntN(150_000)
			}
			from := rng.IntN(text.Len() - size + 1)
			results = append(results, budgetResult{tools[rng.IntN(len(tools))], text.String()[from : from+size]})
		}
		budget := 1_000 + rng.IntN(300_000)
		t.Run(fmt.Sprint(n), func(t *testing.T) { runTurnBudget(t, results, budget) })
	}
}
