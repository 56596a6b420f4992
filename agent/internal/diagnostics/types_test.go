package diagnostics

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/lint/gotypes"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// goEnv is the go command's environment for the tests' modules.
func goEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOWORK=") || strings.HasPrefix(kv, "GOFLAGS=") || strings.HasPrefix(kv, "GOTOOLCHAIN=")
	})
	return append(env, "GOWORK=off", "GOTOOLCHAIN=local")
}

// typesSession is a publisher with a type checker over a workspace that
// is a module example.com/m holding files.
type typesSession struct {
	t   *testing.T
	pub *Publisher
	n   *notifier
	ws  *workspace.Workspace
}

func openTypes(t *testing.T, goCmd string, files map[string]string) *typesSession {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, nil, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	n := &notifier{ch: make(chan struct{}, 64)}
	pub := New(Options{SessionID: "s", Workspace: ws, Linter: &lint.Linter{}, Notifier: n, Publish: true,
		Types: gotypes.New(gotypes.Options{Go: goCmd, Env: goEnv()})})
	t.Cleanup(pub.Close)
	return &typesSession{t: t, pub: pub, n: n, ws: ws}
}

func (s *typesSession) path(name string) workspace.Path {
	p, err := s.ws.Resolve(name)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// edit proposes new content for name and returns its run; write commits
// it after writing it to disk.
func (s *typesSession) edit(name, content string) *TypeRun {
	s.t.Helper()
	p := s.path(name)
	old, err := os.ReadFile(p.Abs())
	if err != nil {
		old = nil
	}
	runs := s.pub.CheckTypes([]Change{{Path: p, Before: old, After: []byte(content)}})
	if len(runs) != 1 {
		s.t.Fatalf("CheckTypes = %d runs, want 1", len(runs))
	}
	for _, r := range runs {
		return r
	}
	return nil
}

func (s *typesSession) write(r *TypeRun, name, content string) {
	s.t.Helper()
	p := s.path(name)
	if err := os.WriteFile(p.Abs(), []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
	r.Commit(map[string][]byte{p.Abs(): []byte(content)})
}

// shown waits until the go-types diagnostics published for name are want
// ("LINE MSG", 1-based), and fails after a while.
func (s *typesSession) shown(name string, want ...string) {
	s.t.Helper()
	uri := s.path(name).URI()
	deadline := time.After(60 * time.Second)
	var got []string
	for {
		got = nil
		sent := s.n.all()
		for i := len(sent) - 1; i >= 0; i-- {
			if sent[i].URI != uri {
				continue
			}
			for _, d := range sent[i].Diagnostics {
				if d.Code == lint.CodeGoTypes {
					got = append(got, fmt.Sprintf("%d %s", d.Range.Start.Line+1, d.Message))
				}
			}
			break
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		select {
		case <-s.n.ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			s.t.Fatalf("%s: go-types diagnostics %q, want %q", name, got, want)
		}
	}
}

// idle waits for the publisher's checks to end.
func (s *typesSession) idle() {
	s.t.Helper()
	for i := 0; ; i++ {
		s.pub.tmu.Lock()
		busy := false
		for _, pt := range s.pub.pkgs {
			busy = busy || pt.current != nil
		}
		s.pub.tmu.Unlock()
		if !busy {
			return
		}
		if i == 1200 {
			s.t.Fatal("the type checks never finished")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const (
	aGo = "package m\n\nfunc Old() int { return 1 }\n"
	bGo = "package m\n\nfunc B() int {\n\treturn Old()\n}\n"
	cGo = "package m\n\nfunc C() {}\n"
)

// TestTypesPublishedAndKept: a write that renames a function shows the
// error it causes in the other file; an unrelated edit later keeps it;
// fixing the call clears it.
func TestTypesPublishedAndKept(t *testing.T) {
	t.Parallel()
	s := openTypes(t, "", map[string]string{"a.go": aGo, "b.go": bGo, "c.go": cGo})
	renamed := "package m\n\nfunc New() int { return 1 }\n"
	s.write(s.edit("a.go", renamed), "a.go", renamed)
	s.shown("b.go", "4 undefined: Old")
	s.idle()

	other := "package m\n\nfunc C() { _ = 1 }\n"
	s.write(s.edit("c.go", other), "c.go", other)
	s.idle()
	s.shown("b.go", "4 undefined: Old")

	fixed := "package m\n\nfunc B() int {\n\treturn New()\n}\n"
	s.write(s.edit("b.go", fixed), "b.go", fixed)
	s.shown("b.go")
}

// TestRejectedEditPublishesNothing: the check of a proposal that is never
// written publishes nothing.
func TestRejectedEditPublishesNothing(t *testing.T) {
	t.Parallel()
	s := openTypes(t, "", map[string]string{"a.go": aGo, "b.go": bGo})
	r := s.edit("a.go", "package m\n\nfunc New() int { return 1 }\n")
	if res, ok := r.Wait(context.Background(), time.Now().Add(60*time.Second)); !ok || res.IntroducedCount() != 1 {
		t.Fatalf("Wait = %+v, %v; want the proposal's one error", res, ok)
	}
	r.Drop()
	s.idle()
	if sent := s.n.all(); len(sent) != 0 {
		t.Errorf("a rejected edit published %+v", sent)
	}
}

// TestNewerWriteCancelsOlderCheck: a write whose check is still running
// (its go list is held up) is overtaken by a newer write in the same
// package; the newer check takes over the older baseline, so the error
// the first write introduced is still shown.
func TestNewerWriteCancelsOlderCheck(t *testing.T) {
	t.Parallel()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	hold := filepath.Join(bin, "hold")
	script := filepath.Join(bin, "go")
	// While the hold file exists, go list -export waits.
	body := fmt.Sprintf("#!/bin/sh\nif [ -e %q ] && [ \"$1 $2 $3\" = \"list -e -export\" ]; then touch %q.seen; while [ -e %q ]; do sleep 0.05; done; fi\nexec %q \"$@\"\n", hold, hold, hold, real)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The package imports strings: its first check lists it.
	s := openTypes(t, script, map[string]string{"a.go": aGo, "b.go": bGo, "c.go": "package m\n\nimport \"strings\"\n\nvar C = strings.ToUpper(\"c\")\n"})
	renamed := "package m\n\nfunc New() int { return 1 }\n"
	first := s.edit("a.go", renamed)
	s.write(first, "a.go", renamed)
	for i := 0; ; i++ { // the first check is held in go list
		if _, err := os.Stat(hold + ".seen"); err == nil {
			break
		}
		if i == 1200 {
			t.Fatal("the first check never ran go list")
		}
		time.Sleep(50 * time.Millisecond)
	}
	other := "package m\n\nimport \"strings\"\n\nvar C = strings.ToLower(\"c\")\n"
	second := s.edit("c.go", other)
	if res, ok := first.Wait(context.Background(), time.Now().Add(time.Second)); ok {
		t.Errorf("the older check finished (%+v); want it cancelled by the newer write", res)
	}
	os.Remove(hold) // the dependency load goes on, for the newer check
	s.write(second, "c.go", other)
	s.shown("b.go", "4 undefined: Old")
}

// TestUserFixClearsTypes: the user fixing a file on disk clears the type
// error the agent's edit caused there.
func TestUserFixClearsTypes(t *testing.T) {
	t.Parallel()
	s := openTypes(t, "", map[string]string{"a.go": aGo, "b.go": bGo})
	renamed := "package m\n\nfunc New() int { return 1 }\n"
	s.write(s.edit("a.go", renamed), "a.go", renamed)
	s.shown("b.go", "4 undefined: Old")
	s.idle()
	b := s.path("b.go")
	if err := os.WriteFile(b.Abs(), []byte("package m\n\nfunc B() int {\n\treturn New()\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.pub.onChange([]string{b.Abs()})
	s.shown("b.go")
}

var _ = acp.MethodPublishDiagnostics

// TestTypeSkipsAreNoted: a check that cannot run is skipped silently (no
// diagnostics) and its reason is listed once for /context.
func TestTypeSkipsAreNoted(t *testing.T) {
	t.Parallel()
	s := openTypes(t, "", map[string]string{"a.go": aGo})
	if err := os.Remove(filepath.Join(s.ws.Cwd(), "go.mod")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.write(s.edit("a.go", "package m\n\nfunc New() { missing() }\n"), "a.go", "package m\n\nfunc New() { missing() }\n")
		s.idle()
	}
	skips := s.pub.TypeSkips()
	if want := "not in a Go module (" + s.ws.Cwd() + ")"; len(skips) != 1 || skips[0] != want {
		t.Errorf("TypeSkips() = %q, want [%q]", skips, want)
	}
	if sent := s.n.all(); len(sent) != 0 {
		t.Errorf("a skipped check published %+v", sent)
	}
}
