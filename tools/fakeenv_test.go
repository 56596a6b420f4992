package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// fakeEnvOptions configures newFakeEnv. The zero value gives a disk-only
// session (no editor) on an empty workspace that approves every edit.
type fakeEnvOptions struct {
	// Files are written to the workspace before the test starts, by slash
	// path relative to the workspace root.
	Files map[string]string
	// Editor makes the session's file access go through a fake editor
	// (fs/read_text_file and fs/write_text_file), built with
	// workspace.NewFiles(ws, editor, true, true).
	Editor bool
	// Buffers are the editor's unsaved buffers, by slash path relative to
	// the workspace root. Setting it implies Editor.
	Buffers map[string]string
	// Approve decides edit approvals; nil approves everything.
	Approve func(callID string, changes []workspace.Change) error
	// RefuseLint is what RefuseNewLintErrors returns.
	RefuseLint bool
	// Workspace is passed to workspace.Open; Home and HermesHome default to
	// folders inside a temporary home so tests never see the real ones.
	Workspace workspace.Options
}

// fakeApproval is one ApproveEdit call seen by a fakeEnv.
type fakeApproval struct {
	CallID  string
	Changes []workspace.Change
	Lints   []lint.Result
}

// fakeLintReport is one ReportLint call seen by a fakeEnv.
type fakeLintReport struct {
	CallID  string
	Path    workspace.Path
	Content string
	Result  lint.Result
}

// fakeEnv is a test Env over a real workspace in a temporary folder. It is
// safe for concurrent use. Tests inspect the recorded approvals and lint
// reports, and the editor's calls through Editor.
type fakeEnv struct {
	Root   string // the workspace root (the session cwd), symlinks resolved
	Home   string // the fake home directory
	Editor *fakeEditor

	ws         *workspace.Workspace
	files      *workspace.Files
	state      *workspace.State
	approve    func(string, []workspace.Change) error
	refuseLint bool
	linter     lint.Linter

	mu        sync.Mutex // guards values, approvals, lints, learned
	values    map[any]any
	approvals []fakeApproval
	lints     []fakeLintReport
	learned   []string
}

var _ Env = (*fakeEnv)(nil)

// newFakeEnv opens a workspace on a new temporary folder, writes
// opts.Files into it and returns the session environment. The workspace is
// closed when the test ends.
func newFakeEnv(t testing.TB, opts fakeEnvOptions) *fakeEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range opts.Files {
		fakeWriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
	}
	wo := opts.Workspace
	if wo.Home == "" {
		wo.Home = home
	}
	if wo.HermesHome == "" {
		wo.HermesHome = filepath.Join(wo.Home, ".hermes")
	}
	ws, err := workspace.Open(root, nil, wo)
	if err != nil {
		t.Fatalf("workspace.Open(%q) = %v", root, err)
	}
	t.Cleanup(func() { ws.Close() })
	e := &fakeEnv{
		Root:       root,
		Home:       wo.Home,
		ws:         ws,
		state:      workspace.NewState(ws),
		approve:    opts.Approve,
		refuseLint: opts.RefuseLint,
		values:     make(map[any]any),
	}
	if opts.Editor || opts.Buffers != nil {
		e.Editor = &fakeEditor{buffers: make(map[string]string)}
		for rel, text := range opts.Buffers {
			e.Editor.buffers[filepath.Join(root, filepath.FromSlash(rel))] = text
		}
		e.files = workspace.NewFiles(ws, e.Editor, true, true)
	} else {
		e.files = workspace.NewFiles(ws, nil, false, false)
	}
	return e
}

// fakeWriteFile writes content to the absolute path abs, creating parents.
func fakeWriteFile(t testing.TB, abs, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *fakeEnv) Workspace() *workspace.Workspace { return e.ws }
func (e *fakeEnv) Files() *workspace.Files         { return e.files }
func (e *fakeEnv) State() *workspace.State         { return e.state }

// Value returns the session value for key, creating it with init (called
// under the lock, so it must not call back into the env).
func (e *fakeEnv) Value(key any, init func() any) any {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.values[key]
	if !ok {
		v = init()
		e.values[key] = v
	}
	return v
}

func (e *fakeEnv) ApproveEdit(ctx context.Context, callID string, changes []workspace.Change, lints []lint.Result) error {
	e.mu.Lock()
	e.approvals = append(e.approvals, fakeApproval{CallID: callID, Changes: changes, Lints: lints})
	approve := e.approve
	e.mu.Unlock()
	if approve == nil {
		return nil
	}
	return approve(callID, changes)
}

func (e *fakeEnv) ReportLint(callID string, p workspace.Path, content []byte, res lint.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lints = append(e.lints, fakeLintReport{CallID: callID, Path: p, Content: string(content), Result: res})
}

func (e *fakeEnv) RefuseNewLintErrors() bool { return e.refuseLint }

func (e *fakeEnv) Linter() *lint.Linter { return &e.linter }

// LearnLint records the call and has the linter learn content at once.
func (e *fakeEnv) LearnLint(p workspace.Path, content []byte) {
	e.mu.Lock()
	e.learned = append(e.learned, p.Abs())
	e.mu.Unlock()
	e.linter.Learn(p.Abs(), content)
}

// Learned returns the paths given to LearnLint so far, in order.
func (e *fakeEnv) Learned() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.learned)
}

// Approvals returns the ApproveEdit calls seen so far.
func (e *fakeEnv) Approvals() []fakeApproval {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]fakeApproval(nil), e.approvals...)
}

// LintReports returns the ReportLint calls seen so far.
func (e *fakeEnv) LintReports() []fakeLintReport {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]fakeLintReport(nil), e.lints...)
}

// Abs returns the absolute path of the slash path rel inside the workspace.
func (e *fakeEnv) Abs(rel string) string { return filepath.Join(e.Root, filepath.FromSlash(rel)) }

// WriteFile writes a file into the workspace on disk (not through the
// editor), creating parent directories.
func (e *fakeEnv) WriteFile(t testing.TB, rel, content string) {
	t.Helper()
	fakeWriteFile(t, e.Abs(rel), content)
}

// ReadFile returns the content of a workspace file on disk.
func (e *fakeEnv) ReadFile(t testing.TB, rel string) string {
	t.Helper()
	data, err := os.ReadFile(e.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Resolve resolves s in the workspace, failing the test on error.
func (e *fakeEnv) Resolve(t testing.TB, s string) workspace.Path {
	t.Helper()
	p, err := e.ws.Resolve(s)
	if err != nil {
		t.Fatalf("Resolve(%q) = %v", s, err)
	}
	return p
}

// Run calls the built-in tool name with args (already decoded JSON values)
// as the registry would after coercion, and returns its result. A handler
// error fails the test.
func (e *fakeEnv) Run(t testing.TB, name string, args map[string]any) string {
	t.Helper()
	out, err := e.RunCtx(t.Context(), name, args)
	if err != nil {
		t.Fatalf("%s(%v) returned error %v", name, args, err)
	}
	return out
}

// RunCtx is Run with an explicit context, returning the handler's error.
func (e *fakeEnv) RunCtx(ctx context.Context, name string, args map[string]any) (string, error) {
	h := fakeHandler(name)
	if h == nil {
		return "", fmt.Errorf("no built-in tool %q with a handler", name)
	}
	if args == nil {
		args = map[string]any{}
	}
	call := &registry.Call{ID: "call-" + name, Name: name, Args: args, Env: e}
	return h(ctx, call)
}

// fakeHandler returns the handler of the built-in tool name, or nil.
func fakeHandler(name string) registry.Handler {
	for _, b := range Builtins() {
		if b.Name == name {
			return b.Handler
		}
	}
	return nil
}

// fakeEditor serves fs/read_text_file and fs/write_text_file from memory,
// as an editor with unsaved buffers would: a path with a buffer reads the
// buffer; any other path reads the disk (as an editor opening the file
// would). Writes go to the disk and replace the buffer. It records the
// paths it was asked for and is safe for concurrent use.
type fakeEditor struct {
	mu      sync.Mutex        // guards every field below
	buffers map[string]string // abs path → buffer text
	readErr error             // when set, every read fails with it
	reads   []string
	writes  []string
}

var _ workspace.Editor = (*fakeEditor)(nil)

func (f *fakeEditor) ReadTextFile(ctx context.Context, abs string) (string, error) {
	f.mu.Lock()
	f.reads = append(f.reads, abs)
	text, ok := f.buffers[abs]
	readErr := f.readErr
	f.mu.Unlock()
	if readErr != nil {
		return "", readErr
	}
	if ok {
		return text, nil
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("fs/read_text_file: resource not found (-32002): %w", fs.ErrNotExist)
	}
	if err != nil {
		return "", fmt.Errorf("fs/read_text_file: %w", err)
	}
	return string(data), nil
}

func (f *fakeEditor) WriteTextFile(ctx context.Context, abs, content string) error {
	f.mu.Lock()
	f.writes = append(f.writes, abs)
	if _, ok := f.buffers[abs]; ok {
		f.buffers[abs] = content
	}
	f.mu.Unlock()
	return os.WriteFile(abs, []byte(content), 0o644)
}

// SetBuffer replaces (or opens) the unsaved buffer of abs.
func (f *fakeEditor) SetBuffer(abs, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buffers[abs] = text
}

// Buffer returns the buffer of abs and whether one is open.
func (f *fakeEditor) Buffer(abs string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text, ok := f.buffers[abs]
	return text, ok
}

// SetReadError makes every later read fail with err (nil restores reads).
func (f *fakeEditor) SetReadError(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readErr = err
}

// Reads returns the paths read so far.
func (f *fakeEditor) Reads() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reads...)
}

// Writes returns the paths written so far.
func (f *fakeEditor) Writes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.writes...)
}
