package memory

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// newStore is a store in a temporary directory with small limits (hermes's
// test fixture: memory 500, user 300).
func newStore(t *testing.T) *Store {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "memories")).WithLimits(500, 300)
}

func add(t *testing.T, s *Store, target, content string) Outcome {
	t.Helper()
	o, err := s.Apply(target, []Op{{Action: ActionAdd, Content: content}}, false)
	if err != nil {
		t.Fatalf("add %q: %v", content, err)
	}
	return o
}

func entries(t *testing.T, s *Store, target string) []string {
	t.Helper()
	e, err := s.Entries(target)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func refusal(t *testing.T, err error) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("got error %v, want a refusal", err)
	}
	return r
}

func TestAddWritesEntriesDelimited(t *testing.T) {
	s := newStore(t)
	o := add(t, s, TargetMemory, "Python 3.12 project")
	if o.Message != "Entry added." || o.Entries != 1 || o.Limit != 500 {
		t.Errorf("outcome %+v", o)
	}
	add(t, s, TargetMemory, "  uses pnpm, not npm\nfor every package  ")
	add(t, s, TargetUser, "Name: Alice")
	raw, err := os.ReadFile(s.Path(TargetMemory))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Python 3.12 project\n§\nuses pnpm, not npm\nfor every package"; string(raw) != want {
		t.Errorf("MEMORY.md = %q, want %q", raw, want)
	}
	if got := entries(t, s, TargetUser); !slices.Equal(got, []string{"Name: Alice"}) {
		t.Errorf("user entries %q", got)
	}
	if filepath.Base(s.Path(TargetUser)) != "USER.md" || filepath.Base(s.Path(TargetMemory)) != "MEMORY.md" {
		t.Errorf("paths %s %s", s.Path(TargetMemory), s.Path(TargetUser))
	}
}

func TestHermesLimits(t *testing.T) {
	s := New(t.TempDir())
	if s.Limit(TargetMemory) != 2200 || s.Limit(TargetUser) != 1375 {
		t.Errorf("limits %d %d", s.Limit(TargetMemory), s.Limit(TargetUser))
	}
	// Exactly at the limit is allowed; one more character is not.
	a, b := strings.Repeat("a", 1000), strings.Repeat("b", 1375-1000-3) // the delimiter is 3 characters
	add(t, s, TargetUser, a)
	add(t, s, TargetUser, b)
	if _, err := s.Apply(TargetUser, []Op{{Action: ActionAdd, Content: "c"}}, false); err == nil {
		t.Fatal("an add past 1375 characters was accepted")
	}
	if n := Chars(entries(t, s, TargetUser)); n != 1375 {
		t.Errorf("user store at %d chars, want 1375", n)
	}
}

func TestLimitCountsCharactersNotBytes(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetUser, strings.Repeat("é", 300)) // 600 bytes, 300 characters
	if got := entries(t, s, TargetUser); len(got) != 1 {
		t.Fatalf("entries %d", len(got))
	}
}

func TestDuplicateAddIsNotStored(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, "fact")
	if o := add(t, s, TargetMemory, "fact"); o.Message != "Entry already exists (no duplicate added)." || o.Entries != 1 {
		t.Errorf("outcome %+v", o)
	}
}

func TestOverflowRefusedAndNothingWritten(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, strings.Repeat("x", 490))
	_, err := s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: "this will exceed the limit"}}, false)
	r := refusal(t, err)
	if !strings.Contains(r.Message, "exceed") || !strings.Contains(r.Message, "retry") || r.Usage != "490/500" {
		t.Errorf("refusal %+v", r)
	}
	if strings.Contains(r.Message, "xxxx") {
		t.Error("the refusal echoes a stored entry")
	}
	// A replace that grows past the limit is refused the same way.
	_, err = s.Apply(TargetMemory, []Op{{Action: ActionReplace, OldText: "xxx", Content: strings.Repeat("y", 600)}}, false)
	if r := refusal(t, err); !strings.Contains(r.Message, "600/500") || r.Usage == "" {
		t.Errorf("replace refusal %+v", r)
	}
	if got := entries(t, s, TargetMemory); !slices.Equal(got, []string{strings.Repeat("x", 490)}) {
		t.Errorf("entries changed: %d", len(got))
	}
}

func TestReplaceAndRemove(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, "Python 3.11 project")
	add(t, s, TargetMemory, "temporary note")
	o, err := s.Apply(TargetMemory, []Op{{Action: ActionReplace, OldText: "3.11", Content: "Python 3.12 project"}}, false)
	if err != nil || o.Message != "Entry replaced." {
		t.Fatalf("replace: %+v %v", o, err)
	}
	o, err = s.Apply(TargetMemory, []Op{{Action: ActionRemove, OldText: "temporary"}}, false)
	if err != nil || o.Message != "Entry removed." || o.Entries != 1 {
		t.Fatalf("remove: %+v %v", o, err)
	}
	if got := entries(t, s, TargetMemory); !slices.Equal(got, []string{"Python 3.12 project"}) {
		t.Errorf("entries %q", got)
	}
}

func TestAmbiguousAndMissingMatches(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, "server A runs nginx")
	add(t, s, TargetMemory, "server B runs nginx")
	_, err := s.Apply(TargetMemory, []Op{{Action: ActionReplace, OldText: "nginx", Content: "apache"}}, false)
	if r := refusal(t, err); !strings.Contains(r.Message, "Multiple entries matched 'nginx'") {
		t.Errorf("refusal %q", r.Message)
	}
	_, err = s.Apply(TargetMemory, []Op{{Action: ActionRemove, OldText: "nonexistent"}}, false)
	if r := refusal(t, err); !strings.Contains(r.Message, "No entry matched 'nonexistent'") {
		t.Errorf("refusal %q", r.Message)
	}
	_, err = s.Apply(TargetMemory, []Op{{Action: ActionRemove, OldText: "  "}}, false)
	refusal(t, err)
	if len(entries(t, s, TargetMemory)) != 2 {
		t.Error("a refused change changed the store")
	}
}

func TestExactEntryBeatsSubstring(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, "test")
	add(t, s, TargetMemory, "echo-reply tests pass via local twins")
	if _, err := s.Apply(TargetMemory, []Op{{Action: ActionRemove, OldText: "test"}}, false); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, s, TargetMemory); !slices.Equal(got, []string{"echo-reply tests pass via local twins"}) {
		t.Errorf("entries %q", got)
	}
}

func TestBatchIsAtomicAndCheckedOnTheResult(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, strings.Repeat("s", 230)+" stale one")
	add(t, s, TargetMemory, strings.Repeat("t", 230)+" stale two")
	// Adding 200 more would overflow on its own; with the removes first the
	// result fits, and the batch succeeds.
	o, err := s.Apply(TargetMemory, []Op{
		{Action: ActionAdd, Content: strings.Repeat("f", 250) + " fresh"},
		{Action: ActionRemove, OldText: "stale one"},
		{Action: ActionRemove, OldText: "stale two"},
	}, true)
	if err != nil {
		t.Fatalf("batch: %v", err)
	}
	if o.Message != "Applied 3 operation(s)." || o.Entries != 1 {
		t.Errorf("outcome %+v", o)
	}
	// One bad operation: nothing applied.
	before := entries(t, s, TargetMemory)
	_, err = s.Apply(TargetMemory, []Op{
		{Action: ActionAdd, Content: "legit fact"},
		{Action: ActionRemove, OldText: "not in any entry"},
	}, true)
	if r := refusal(t, err); !strings.Contains(r.Message, "Operation 2 (remove): no entry matched") || !strings.Contains(r.Message, "all-or-nothing") {
		t.Errorf("refusal %q", r.Message)
	}
	// Over the limit on the result: nothing applied.
	_, err = s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: "small"}, {Action: ActionAdd, Content: strings.Repeat("z", 400)}}, true)
	if r := refusal(t, err); !strings.Contains(r.Message, "over the limit") {
		t.Errorf("refusal %q", r.Message)
	}
	if got := entries(t, s, TargetMemory); !slices.Equal(got, before) {
		t.Errorf("a refused batch changed the store: %q", got)
	}
	// A duplicate add in a batch is skipped, not a failure.
	if _, err := s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: before[0]}, {Action: ActionAdd, Content: "brand new"}}, true); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, s, TargetMemory); !slices.Equal(got, append(before, "brand new")) {
		t.Errorf("entries %q", got)
	}
	// Malformed operations name their position.
	for _, c := range []struct {
		op   Op
		want string
	}{
		{Op{Action: "add"}, "Operation 1 (add): content is required."},
		{Op{Action: "replace", Content: "x"}, "Operation 1 (replace): old_text is required."},
		{Op{Action: "replace", OldText: "x"}, "Operation 1 (replace): content is required"},
		{Op{Action: "zap"}, "Operation 1 (zap): unknown action."},
	} {
		_, err := s.Apply(TargetMemory, []Op{c.op}, true)
		if r := refusal(t, err); !strings.HasPrefix(r.Message, c.want) {
			t.Errorf("%+v: %q, want %q…", c.op, r.Message, c.want)
		}
	}
}

func TestRemovingFromAnOverBudgetFileIsAllowed(t *testing.T) {
	s := newStore(t)
	// Written by hand past the limit, entries each under it.
	raw := strings.Repeat("a", 300) + Delimiter + strings.Repeat("b", 300)
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(TargetMemory), []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(TargetMemory, []Op{{Action: ActionRemove, OldText: "aaa"}}, false); err != nil {
		t.Fatalf("remove from an over-budget file: %v", err)
	}
}

func TestDriftRefusesRewriteAndKeepsTheFile(t *testing.T) {
	s := newStore(t)
	add(t, s, TargetMemory, "User likes brevity.")
	path := s.Path(TargetMemory)
	old, _ := os.ReadFile(path)
	drifted := string(old) + "\n\n## Vendor Master\n" + strings.Repeat("x", 800)
	if err := os.WriteFile(path, []byte(drifted), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Apply(TargetMemory, []Op{{Action: ActionReplace, OldText: "User likes", Content: "User prefers concise."}}, false)
	if r := refusal(t, err); !strings.Contains(r.Message, "Refusing to write MEMORY.md") {
		t.Errorf("refusal %q", r.Message)
	}
	if got, _ := os.ReadFile(path); string(got) != drifted {
		t.Error("the drifted file was changed")
	}
}

func TestUnreadableFileIsAnErrorNotAnEmptyStore(t *testing.T) {
	s := newStore(t)
	// A directory where MEMORY.md should be cannot be read as a file.
	if err := os.MkdirAll(s.Path(TargetMemory), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: "x"}}, false)
	var r *Refusal
	if err == nil || errors.As(err, &r) {
		t.Fatalf("got %v, want a read error", err)
	}
	if fi, err := os.Stat(s.Path(TargetMemory)); err != nil || !fi.IsDir() {
		t.Error("the unreadable path was replaced")
	}
}

func TestParseDropsEmptyAndDuplicateEntries(t *testing.T) {
	got := Parse("duplicate entry\n§\nduplicate entry\n§\n\n§\n  unique entry \n")
	if !slices.Equal(got, []string{"duplicate entry", "unique entry"}) {
		t.Errorf("Parse = %q", got)
	}
	// A § inside an entry is not a delimiter.
	if got := Parse("costs 5 § per unit"); len(got) != 1 {
		t.Errorf("Parse split on a bare §: %q", got)
	}
}

func TestInvalidTarget(t *testing.T) {
	_, err := newStore(t).Apply("notes", []Op{{Action: ActionAdd, Content: "x"}}, false)
	if r := refusal(t, err); r.Message != "Invalid target 'notes'. Use 'memory' or 'user'." {
		t.Errorf("refusal %q", r.Message)
	}
}

func TestWriteIsAtomicAndLeavesNoTemporaryFiles(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "memories"))
	for i := range 20 {
		add(t, s, TargetMemory, fmt.Sprintf("entry %d", i))
	}
	names, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n.Name() != "MEMORY.md" && n.Name() != "MEMORY.md.lock" {
			t.Errorf("left behind %s", n.Name())
		}
	}
	fi, err := os.Stat(s.Path(TargetMemory))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.Stat(s.Path(TargetMemory) + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && (fi.Mode().Perm() != 0o600 || lock.Mode().Perm() != 0o600) {
		t.Errorf("MEMORY.md mode %v, lock mode %v, want 0600 (the memory is private)", fi.Mode().Perm(), lock.Mode().Perm())
	}
	// A reader racing writers sees whole files only: every entry it parses
	// is one that was written.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		defer close(stop)
		for i := range 50 {
			if _, err := s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: fmt.Sprintf("more %d", i)}}, false); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for {
		select {
		case <-stop:
			wg.Wait()
			return
		default:
		}
		raw, err := os.ReadFile(s.Path(TargetMemory))
		if err != nil {
			t.Fatalf("read during writes: %v", err)
		}
		for _, e := range Parse(string(raw)) {
			if !strings.HasPrefix(e, "entry ") && !strings.HasPrefix(e, "more ") {
				t.Fatalf("torn entry %q", e)
			}
		}
		if n := len(Parse(string(raw))); n < 20 {
			t.Fatalf("a reader saw %d entries, fewer than were written before", n)
		}
	}
}

func TestConcurrentGoroutinesLoseNothing(t *testing.T) {
	s := New(t.TempDir())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				if _, err := s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: fmt.Sprintf("g%d-%d", g, i)}}, false); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := entries(t, s, TargetMemory); len(got) != 80 {
		t.Errorf("%d entries after 80 concurrent adds", len(got))
	}
}

// helperEnv makes the test binary a writer process (TestConcurrentProcesses).
const helperEnv = "HERMES_MEMORY_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(writer(spec))
	}
	os.Exit(m.Run())
}

// writer adds n entries "<name>-<i>" to the store in dir; spec is
// "dir|name|n".
func writer(spec string) int {
	parts := strings.Split(spec, "|")
	var n int
	fmt.Sscan(parts[2], &n)
	s := New(parts[0])
	for i := range n {
		if _, err := s.Apply(TargetMemory, []Op{{Action: ActionAdd, Content: fmt.Sprintf("%s-%d", parts[1], i)}}, false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestConcurrentProcessesLoseNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memories")
	const procs, each = 4, 25
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|p%d|%d", helperEnv, dir, p, each))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
	}
	got := entries(t, New(dir), TargetMemory)
	if len(got) != procs*each {
		t.Fatalf("%d entries after %d adds from %d processes", len(got), procs*each, procs)
	}
	for p := range procs {
		for i := range each {
			if !slices.Contains(got, fmt.Sprintf("p%d-%d", p, i)) {
				t.Errorf("lost p%d-%d", p, i)
			}
		}
	}
}

func TestSnapshot(t *testing.T) {
	s := newStore(t)
	if snap, err := s.Snapshot(); err != nil || snap != "" {
		t.Fatalf("empty store snapshot %q %v", snap, err)
	}
	add(t, s, TargetMemory, "loaded at start")
	add(t, s, TargetUser, "Name: Alice")
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MEMORY (your personal notes) [3% — 15/500 chars]", "loaded at start", "USER PROFILE (who the user is) [3% — 11/300 chars]", "Name: Alice"} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, snap)
		}
	}
	if strings.Index(snap, "MEMORY (") > strings.Index(snap, "USER PROFILE") {
		t.Error("memory block should come before the user block")
	}
}

func TestSnapshotCapsAnOverBudgetFile(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(s.Dir(), 0o700)
	os.WriteFile(s.Path(TargetMemory), []byte(strings.Repeat("word ", 3000)), 0o600)
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(snap) > 5000 || !strings.Contains(snap, "truncated") || !strings.Contains(snap, "OVER BUDGET") {
		t.Errorf("snapshot of %d bytes:\n%.300s", len(snap), snap)
	}
}

// WithLimits returns a copy of s with other limits (a test shorthand).
func (s *Store) WithLimits(memory, user int) *Store {
	c := *s
	c.memoryLimit, c.userLimit = memory, user
	return &c
}

// Dir returns the store's directory (a test shorthand).
func (s *Store) Dir() string { return s.dir }
