package agent

import (
	"bytes"
	"errors"
	"io/fs"
	"sync"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// maxRelintBytes caps the files the watcher re-lints.
const maxRelintBytes = 4 << 20

// maxPublished caps the diagnostics published for one file.
const maxPublished = 200

// publishParams is the _hermes/publishDiagnostics notification.
type publishParams struct {
	SessionID   string `json:"sessionId"`
	URI         string `json:"uri"`
	Version     int    `json:"version,omitempty"`
	Diagnostics any    `json:"diagnostics"`
}

// linted remembers, per file the agent linted, the content last linted, so
// that a change on disk can be re-linted against it.
type linted struct {
	mu      sync.Mutex // guards the fields below
	files   map[string][]byte
	version map[string]int
	watcher *workspace.Watcher
	started bool
	closed  bool
}

// Linter returns the agent's linter, shared by its sessions.
func (e *Env) Linter() *lint.Linter { return e.s.a.opts.Linter }

// LearnLint has the agent's linter learn content, the text of p that the
// model just read, in the background (a copy is taken): the lint of a later
// edit of p then parses only what the edit changed. It does nothing for a
// file whose lint would not speed up, one too big to re-lint, or once the
// session is closing.
func (e *Env) LearnLint(p workspace.Path, content []byte) {
	if !lint.Learns(p.Abs(), len(content)) || len(content) > maxRelintBytes {
		return
	}
	e.lint.mu.Lock()
	defer e.lint.mu.Unlock()
	if e.lint.closed {
		return
	}
	content = bytes.Clone(content)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.Linter().Learn(p.Abs(), content)
	}()
}

// RefuseNewLintErrors reports lint.on_new_errors: refuse.
func (e *Env) RefuseNewLintErrors() bool { return e.s.a.opts.LintRefuse }

// ReportLint records the lint of a file written by tool call callID: the
// completing tool_call_update carries it in _meta.hermes.lint and the
// editor receives the file's full diagnostics.
func (e *Env) ReportLint(callID string, p workspace.Path, content []byte, res lint.Result) {
	if res.Language == lint.LanguageNone {
		return
	}
	uri := p.URI()
	if t := e.s.tracker(callID); t != nil {
		t.addLint(res.Meta(lint.URI(uri)))
	}
	e.remember(p, content)
	e.publish(uri, res)
}

// addLint merges a file's lint into the tracker's _meta.hermes.lint.
func (t *toolCallTracker) addLint(m lint.Meta) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.meta == nil {
		t.meta = map[string]any{}
	}
	if prev, ok := t.meta["lint"].(lint.Meta); ok {
		m = mergeMeta([]lint.Meta{prev, m})
	}
	t.meta["lint"] = m
}

// publish sends the file's full current diagnostic set.
func (e *Env) publish(uri string, res lint.Result) {
	e.lint.mu.Lock()
	if e.lint.version == nil {
		e.lint.version = map[string]int{}
	}
	e.lint.version[uri]++
	v := e.lint.version[uri]
	e.lint.mu.Unlock()
	diags := res.Diagnostics()
	if len(diags) > maxPublished {
		diags = diags[:maxPublished] // a garbage file can have thousands
	}
	err := e.s.client.Notify("_hermes/publishDiagnostics", &publishParams{SessionID: e.s.id, URI: uri, Version: v, Diagnostics: diags})
	if err != nil {
		e.s.a.log.Debug("publish diagnostics", "uri", uri, "error", err)
	}
}

// remember keeps the linted content and makes sure the watcher runs, so a
// later change on disk (the user fixing the file) is re-linted.
func (e *Env) remember(p workspace.Path, content []byte) {
	e.lint.mu.Lock()
	defer e.lint.mu.Unlock()
	if e.lint.closed {
		return
	}
	if e.lint.files == nil {
		e.lint.files = map[string][]byte{}
	}
	if len(content) <= maxRelintBytes {
		e.lint.files[p.Abs()] = append([]byte(nil), content...)
	}
	if e.lint.watcher != nil {
		e.lint.watcher.Touch(p)
		return
	}
	if e.lint.started {
		return
	}
	e.lint.started = true
	// Walking a large tree takes a while: start the watcher off the turn.
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		w, err := workspace.NewWatcher(e.s.ws, workspace.WatchOptions{OnChange: e.changed, Log: e.s.a.log})
		if err != nil {
			e.s.a.log.Warn("file watcher unavailable; external changes are not re-linted", "error", err)
			return
		}
		e.lint.mu.Lock()
		if e.lint.closed {
			e.lint.mu.Unlock()
			w.Close()
			return
		}
		e.lint.watcher = w
		e.lint.mu.Unlock()
		w.Touch(p)
	}()
}

// changed is the watcher's callback: external changes feed staleness, and
// linted files are re-linted and republished.
func (e *Env) changed(paths []string) {
	e.state.MarkChanged(paths...)
	for _, abs := range paths {
		e.lint.mu.Lock()
		before, ok := e.lint.files[abs]
		e.lint.mu.Unlock()
		if !ok {
			continue
		}
		p, err := e.s.ws.Resolve(abs)
		if err != nil {
			continue
		}
		after, err := e.s.ws.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			// Deleted: clear its diagnostics.
			e.lint.mu.Lock()
			delete(e.lint.files, abs)
			e.lint.mu.Unlock()
			e.publish(p.URI(), lint.Result{Introduced: nil, Preexisting: nil})
			continue
		}
		if err != nil || len(after) > maxRelintBytes || bytes.Equal(before, after) {
			continue // unreadable, too big, or our own write
		}
		res := e.Linter().DeltaFile(abs, before, after)
		e.lint.mu.Lock()
		e.lint.files[abs] = after
		e.lint.mu.Unlock()
		e.publish(p.URI(), res)
	}
}

// close stops the watcher and waits for its start-up goroutine.
func (e *Env) close() {
	e.lint.mu.Lock()
	e.lint.closed = true
	w := e.lint.watcher
	e.lint.watcher = nil
	e.lint.mu.Unlock()
	if w != nil {
		w.Close()
	}
	e.wg.Wait() // a watcher started meanwhile sees closed and closes itself
}
