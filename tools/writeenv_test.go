package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// editDenial is what the model reads when the user rejects an edit
// (ApproveEdit's decision DenyRejected); the fake denies with it when
// editEnvOptions.deny is set.
const editDenial = "Edit approval denied: the user rejected this edit. No file was modified. " +
	"Do not retry the same edit; ask the user what they want instead."

// editEnv is the fake session of the write_file and patch tests: a real
// workspace in a temporary folder, files served by the disk or by an
// editEditor, and a recording approver with a scripted decision. It embeds
// the session the handlers run in; tests may replace its Deps (Files) before
// the first call.
type editEnv struct {
	*session
	root   string
	home   string
	linter lint.Linter

	mu        sync.Mutex // guards approvals, reports, deny, onApprove
	approvals []editApproval
	reports   []editReport
	deny      workspace.Decision
	onApprove func([]workspace.Change)
}

// editApproval is one recorded ApproveEdit call.
type editApproval struct {
	callID  string
	changes []workspace.Change
	lints   []lint.Result
}

// editReport is one recorded ReportLint call.
type editReport struct {
	callID  string
	path    string // absolute
	content string
	res     lint.Result
}

// editEnvOptions configures newEditEnv.
type editEnvOptions struct {
	root    string      // workspace root; "" means a new temporary folder
	home    string      // the user's home; "" means a new temporary folder
	editor  *editEditor // serves reads and writes when set
	refuse  bool        // lint.on_new_errors: refuse
	deny    bool        // ApproveEdit denies: the user rejects (editDenial)
	denial  workspace.Decision
	enabled func(string) bool // Deps.Enabled; nil enables every tool
}

// newEditEnv opens a workspace for a test; it is closed when the test ends.
// With deny, ApproveEdit answers o.denial, or DenyRejected when that is
// zero.
func newEditEnv(t testing.TB, o editEnvOptions) *editEnv {
	t.Helper()
	if o.root == "" {
		o.root = t.TempDir()
	}
	if o.home == "" {
		o.home = t.TempDir()
	}
	ws, err := workspace.Open(o.root, nil, workspace.Options{
		Home:       o.home,
		HermesHome: filepath.Join(o.home, ".hermes"),
	})
	if err != nil {
		t.Fatalf("workspace.Open(%q): %v", o.root, err)
	}
	t.Cleanup(func() { ws.Close() })
	var ed workspace.Editor
	if o.editor != nil {
		ed = o.editor
	}
	e := &editEnv{root: o.root, home: o.home, deny: workspace.Decision{Approved: true}}
	if o.deny {
		e.deny = o.denial
		if e.deny.Denial == workspace.DenyNothing {
			e.deny = workspace.Decision{Denial: workspace.DenyRejected}
		}
	}
	e.session = newSession(Deps{
		Workspace:           ws,
		Files:               workspace.NewFiles(ws, ed, o.editor != nil, o.editor != nil),
		State:               workspace.NewState(ws),
		Approver:            e,
		Lint:                e,
		Linter:              &e.linter,
		RefuseNewLintErrors: o.refuse,
		Enabled:             o.enabled,
	})
	return e
}

func (e *editEnv) LearnLint(p workspace.Path, content []byte) { e.linter.Learn(p.Abs(), content) }

func (e *editEnv) ApproveEdit(_ context.Context, callID string, changes []workspace.Change, lints []lint.Result) workspace.Decision {
	e.mu.Lock()
	e.approvals = append(e.approvals, editApproval{callID, slices.Clone(changes), slices.Clone(lints)})
	deny, hook := e.deny, e.onApprove
	e.mu.Unlock()
	if hook != nil {
		hook(changes)
	}
	return deny
}

func (e *editEnv) ReportLint(callID string, p workspace.Path, content []byte, res lint.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reports = append(e.reports, editReport{callID, p.Abs(), string(content), res})
}

// recorded returns copies of the approvals and lint reports so far.
func (e *editEnv) recorded() ([]editApproval, []editReport) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.approvals), slices.Clone(e.reports)
}

// abs returns the absolute path of rel inside the root.
func (e *editEnv) abs(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// target resolves rel for writing, failing the test when it is refused.
func (e *editEnv) target(t testing.TB, rel string) workspace.Path {
	t.Helper()
	p, msg := editTarget(e.services(), rel, "Write")
	if msg != "" {
		t.Fatalf("editTarget(%q): %s", rel, msg)
	}
	return p
}

// run calls the registered tool with args as call "call-1" and decodes its
// result. A Go error from the handler, or an IsError that disagrees with
// the result's "error" key, fails the test.
func (e *editEnv) run(t testing.TB, tool string, args map[string]any) map[string]any {
	t.Helper()
	return resultObject(t, e.result(t, tool, args))
}

// runRaw is run returning the text the model reads.
func (e *editEnv) runRaw(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	return e.result(t, tool, args).Encode()
}

// bench is runRaw for benchmarks: the handler and the encoding the model
// reads, without the test's checks.
func (e *editEnv) bench(b *testing.B, tool string, args map[string]any) string {
	r, err := runBuiltin(b.Context(), e.session, "call-1", tool, args)
	if err != nil {
		b.Fatalf("%s(%v) returned a Go error: %v", tool, args, err)
	}
	return r.Encode()
}

// result is run returning the typed result.
func (e *editEnv) result(t testing.TB, tool string, args map[string]any) registry.Result {
	t.Helper()
	r, err := runBuiltin(t.Context(), e.session, "call-1", tool, args)
	if err != nil {
		t.Fatalf("%s(%v) returned a Go error: %v", tool, args, err)
	}
	checkIsError(t, tool, r)
	return r
}

// editWriteTree creates files (slash-separated paths relative to root).
func editWriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// editTree returns every regular file under root (slash-separated relative
// paths) with its content.
func editTree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return out
}

// editEditor is a fake editor (ACP fs/*): it serves its open buffers, falls
// back to the disk for files it has not opened, and keeps every write in a
// buffer without touching the disk, as an editor with unsaved changes
// does. mangle, when set, alters what is stored, and writeErr fails every
// write (a broken client).
type editEditor struct {
	mu       sync.Mutex // guards buffers, writes
	buffers  map[string]string
	writes   []string
	mangle   func(string) string
	writeErr error // returned by every write when set
}

func newEditEditor(buffers map[string]string) *editEditor {
	if buffers == nil {
		buffers = map[string]string{}
	}
	return &editEditor{buffers: buffers}
}

func (ed *editEditor) ReadTextFile(_ context.Context, abs string) (string, error) {
	ed.mu.Lock()
	text, ok := ed.buffers[abs]
	ed.mu.Unlock()
	if ok {
		return text, nil
	}
	b, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("resource not found: %s: %w", abs, fs.ErrNotExist)
	}
	return string(b), err
}

func (ed *editEditor) WriteTextFile(_ context.Context, abs, content string) error {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if ed.writeErr != nil {
		return ed.writeErr
	}
	if ed.mangle != nil {
		content = ed.mangle(content)
	}
	ed.buffers[abs] = content
	ed.writes = append(ed.writes, abs)
	return nil
}

// buffer returns the editor's text of abs and whether it has one.
func (ed *editEditor) buffer(abs string) (string, bool) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	s, ok := ed.buffers[abs]
	return s, ok
}

// editJSON renders v for failure messages.
func editJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return strings.TrimSpace(string(b))
}
