package registry

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func newStore(dir string) *resultStore {
	return &resultStore{dir: dir, preview: DefaultPreviewChars, log: slog.New(slog.DiscardHandler)}
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
	msg := persistedMessage("first 100 chars...", true, 50_000, "/r/test123.txt")
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
	if got := persistedMessage("all", false, 3, "/r/x.txt"); strings.Contains(got, "\n...\n") {
		t.Errorf("persistedMessage without more = %q, want no ellipsis line", got)
	}
	if got := persistedMessage("x", true, 2_000_000, "/r/big.txt"); !strings.Contains(got, "(2,000,000 characters, 1.9 MB)") {
		t.Errorf("persistedMessage for 2M chars = %q, want size in MB", got)
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
		{"threshold zero forces persistence", "even short content", 0, true, false},
		{"unicode counted in characters", strings.Repeat("日本語テスト ", 10_000), 30_000, true, false},
		{"multibyte under threshold in characters", strings.Repeat("é", 20_000), 30_000, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id := "tc_" + strings.ReplaceAll(tc.name, " ", "_")
			got, persisted := s.persist("terminal", id, tc.content, tc.threshold)
			if persisted != tc.wantPersisted || (got == tc.content) != tc.wantSame {
				t.Fatalf("persist(%d chars, %d) persisted=%v same=%v, want %v %v", len(tc.content), tc.threshold, persisted, got == tc.content, tc.wantPersisted, tc.wantSame)
			}
			if !persisted {
				return
			}
			path := filepath.Join(dir, safeResultFileName(id))
			if !strings.Contains(got, "Full output saved to: "+path+"\n") || !strings.HasPrefix(got, persistedOutputTag) {
				t.Errorf("persist result = %q, want a persisted-output block naming %s", got, path)
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
	for _, dir := range []string{"", filepath.Join(blocker, "sub")} { // no dir; a dir that cannot be created
		got, persisted := newStore(dir).persist("terminal", "tc_789", content, 30_000)
		want := truncateRunes(content, 1500) + "\n\n[Truncated: tool response was 60,017 chars. Full output could not be saved to sandbox.]"
		if persisted || got != want {
			t.Errorf("persist with dir %q = (%.80q…, %v), want inline truncation", dir, got, persisted)
		}
	}
}

func TestEnforceTurnBudget(t *testing.T) {
	t.Parallel()
	mk := func(contents ...string) ([]*Call, []Outcome) {
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
		newStore(t.TempDir()).enforceTurnBudget(cs, outs, 200_000)
		if outs[0].Content != "small" || outs[1].Content != "also small" {
			t.Errorf("outcomes changed under budget: %+v", outs)
		}
	})
	t.Run("80K plus 130K persists the 130K one", func(t *testing.T) {
		t.Parallel()
		cs, outs := mk(strings.Repeat("a", 80_000), strings.Repeat("b", 130_000))
		newStore(t.TempDir()).enforceTurnBudget(cs, outs, 200_000)
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
		newStore(t.TempDir()).enforceTurnBudget(cs, outs, 200_000)
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
		newStore(t.TempDir()).enforceTurnBudget(cs, outs, 200_000)
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
		newStore("").enforceTurnBudget(cs, outs, 200_000)
		if !strings.Contains(outs[0].Content, "[Truncated: tool response was 250,000 chars.") || outs[0].Persisted {
			t.Errorf("no-dir enforcement = %.80q (persisted %v), want inline truncation", outs[0].Content, outs[0].Persisted)
		}
	})
	t.Run("ids default to budget index", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cs, outs := mk(strings.Repeat("x", 300))
		cs[0].ID = ""
		newStore(dir).enforceTurnBudget(cs, outs, 100)
		if _, err := os.Stat(filepath.Join(dir, "budget_0.txt")); err != nil {
			t.Errorf("budget file for an id-less call: %v", err)
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
