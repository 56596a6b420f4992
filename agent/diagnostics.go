package agent

import (
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Linter returns the agent's linter, shared by its sessions.
func (e *Env) Linter() *lint.Linter { return e.s.a.opts.Linter }

// LearnLint has the agent's linter learn content, the text of p that the
// model just read, in the background (a copy is taken): the lint of a later
// edit of p then parses only what the edit changed. It does nothing for a
// file whose lint would not speed up, one too big to re-lint, or once the
// session is closing.
func (e *Env) LearnLint(p workspace.Path, content []byte) { e.diag.Learn(p, content) }

// RefuseNewLintErrors reports lint.on_new_errors: refuse.
func (e *Env) RefuseNewLintErrors() bool { return e.s.a.opts.LintRefuse }

// ReportLint records the lint of a file written by tool call callID: the
// completing tool_call_update carries it in _meta.hermes.lint and the
// editor receives the file's full diagnostics.
func (e *Env) ReportLint(callID string, p workspace.Path, content []byte, res lint.Result) {
	if res.Language == lint.LanguageNone {
		return
	}
	if t := e.s.tracker(callID); t != nil {
		t.addLint(res.Meta(lint.URI(p.URI())))
	}
	e.diag.Report(p, content, res)
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

// close stops the diagnostics publisher and its watcher.
func (e *Env) close() {
	e.runClosers()
	e.diag.Close()
}
