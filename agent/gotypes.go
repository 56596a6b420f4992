package agent

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/agent/internal/diagnostics"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// DefaultGoTypesWait is how long an approval prompt, and a write's result,
// wait for the Go type check of the edit, counted from its start.
const DefaultGoTypesWait = 500 * time.Millisecond

// TypeCheck is the Go type check of one tool call's proposed changes,
// started by [Env.CheckTypes] before the call asks for approval. When
// ApproveEdit asks the user it waits for it, until the budget
// (Options.GoTypesWait, counted from the start) is spent, and the prompt's
// summary counts the type errors the changes introduce; each write's
// result (Wrote) includes them when they are ready by then. Findings that
// come later reach the editor as diagnostics. The call ends it with Done.
// Its methods are safe for concurrent use; a nil *TypeCheck does nothing.
type TypeCheck struct {
	e        *Env
	callID   string
	deadline time.Time
	runs     map[string]*diagnostics.TypeRun // by package directory
	// changed holds, by directory, the files the call changes there.
	changed map[string]map[string]bool

	mu sync.Mutex // guards the fields below
	// written holds, by directory, the texts the call wrote (nil:
	// removed), by absolute path.
	written map[string]map[string][]byte
	// elsewhere marks the directories whose findings in files the call
	// did not change were given with a result already.
	elsewhere map[string]bool
	done      bool
}

// typeCheckSet is a session's running type checks, by tool call id.
type typeCheckSet struct {
	mu     sync.Mutex
	byCall map[string]*TypeCheck
}

func (s *typeCheckSet) add(t *TypeCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byCall == nil {
		s.byCall = map[string]*TypeCheck{}
	}
	s.byCall[t.callID] = t
}

func (s *typeCheckSet) get(callID string) *TypeCheck {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byCall[callID]
}

func (s *typeCheckSet) remove(t *TypeCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byCall[t.callID] == t {
		delete(s.byCall, t.callID)
	}
}

// CheckTypes starts the Go type check of tool call callID's changes, whose
// syntax lints are lints (in the same order): the Go files among them
// (edits, new files, deletions, both ends of a move) whose change adds no
// syntax error, checked per package directory against the package as it
// is. It returns nil when there is none or the session does not
// type-check.
func (e *Env) CheckTypes(callID string, changes []workspace.Change, lints []lint.Result) *TypeCheck {
	if !e.diag.TypesOn() {
		return nil
	}
	var cs []diagnostics.Change
	text := func(s *string) []byte {
		if s == nil {
			return nil
		}
		return []byte(*s)
	}
	for i, c := range changes {
		if i < len(lints) && lints[i].IntroducedErrors() > 0 {
			continue // the syntax lint reports it; type errors would be noise
		}
		switch c.Kind {
		case workspace.ChangeCreate:
			cs = appendGo(cs, diagnostics.Change{Path: c.Path, After: []byte(c.New)})
		case workspace.ChangeEdit:
			cs = appendGo(cs, diagnostics.Change{Path: c.Path, Before: text(c.Old), After: []byte(c.New)})
		case workspace.ChangeDelete:
			cs = appendGo(cs, diagnostics.Change{Path: c.Path, Before: text(c.Old)})
		case workspace.ChangeMove:
			cs = appendGo(cs, diagnostics.Change{Path: c.Path, Before: text(c.Old)})
			cs = appendGo(cs, diagnostics.Change{Path: c.MoveTo, After: []byte(c.New)})
		}
	}
	runs := e.diag.CheckTypes(cs)
	if len(runs) == 0 {
		return nil
	}
	t := &TypeCheck{e: e, callID: callID, deadline: time.Now().Add(e.s.a.goTypesWait()), runs: runs,
		changed: map[string]map[string]bool{}, written: map[string]map[string][]byte{}, elsewhere: map[string]bool{}}
	for _, c := range cs {
		dir := filepath.Dir(c.Path.Abs())
		if t.changed[dir] == nil {
			t.changed[dir] = map[string]bool{}
		}
		t.changed[dir][c.Path.Abs()] = true
	}
	e.s.typeChecks.add(t)
	return t
}

// appendGo appends c when it is a Go file.
func appendGo(cs []diagnostics.Change, c diagnostics.Change) []diagnostics.Change {
	if c.Path.IsZero() || lint.LanguageFor(c.Path.Abs()) != lint.LanguageGo {
		return cs
	}
	return append(cs, c)
}

// proposal returns lints with the type check's findings in each change's
// file merged in, waiting for the check until the budget is spent or ctx
// is done; a change whose check is not ready is marked TypesPending.
func (t *TypeCheck) proposal(ctx context.Context, changes []workspace.Change, lints []lint.Result) []lint.Result {
	if t == nil {
		return lints
	}
	out := make([]lint.Result, len(changes))
	copy(out, lints)
	given := map[string]bool{}
	for i, c := range changes {
		target := c.Path
		if c.Kind == workspace.ChangeMove && !c.MoveTo.IsZero() {
			target = c.MoveTo
		}
		if c.Kind == workspace.ChangeDelete || i >= len(lints) || lints[i].Language != lint.LanguageGo {
			continue
		}
		dir := filepath.Dir(target.Abs())
		run := t.runs[dir]
		if run == nil {
			continue
		}
		res, ok := run.Wait(ctx, t.deadline)
		switch {
		case !ok:
			out[i].TypesPending = true
		case !res.Skipped:
			var elsewhere []lint.FileDiagnostics
			if !given[dir] {
				elsewhere = res.IntroducedElsewhere(changedIn(changes, dir), fileURI)
				given[dir] = true
			}
			out[i] = out[i].WithTypes(res.Introduced(target.Abs()), elsewhere)
		}
	}
	return out
}

// changedIn returns the absolute paths of the changes' files in dir.
func changedIn(changes []workspace.Change, dir string) map[string]bool {
	out := map[string]bool{}
	for _, c := range changes {
		for _, p := range []workspace.Path{c.Path, c.MoveTo} {
			if !p.IsZero() && filepath.Dir(p.Abs()) == dir {
				out[p.Abs()] = true
			}
		}
	}
	return out
}

// Wrote records that the call wrote p, whose decoded text is now text, and
// returns res, its lint, with the type check's findings in p merged in
// (and, for the first file written in a package, those in the package's
// files the call did not change) when the check finishes within the
// budget; otherwise res is marked TypesPending and the findings go to the
// editor when they are ready.
func (t *TypeCheck) Wrote(p workspace.Path, text []byte, res lint.Result) lint.Result {
	if t == nil {
		return res
	}
	dir := filepath.Dir(p.Abs())
	run := t.runs[dir]
	if run == nil {
		return res
	}
	t.mu.Lock()
	if t.written[dir] == nil {
		t.written[dir] = map[string][]byte{}
	}
	t.written[dir][p.Abs()] = text
	t.mu.Unlock()
	if res.Language != lint.LanguageGo || res.IntroducedErrors() > 0 {
		return res
	}
	r, ok := run.Wait(context.Background(), t.deadline)
	switch {
	case !ok:
		res.TypesPending = true
		return res
	case r.Skipped:
		return res
	}
	// The check saw the proposal; what was written is the same text
	// unless the file changed in between, when Done checks it again.
	var elsewhere []lint.FileDiagnostics
	t.mu.Lock()
	if !t.elsewhere[dir] {
		t.elsewhere[dir] = true
		elsewhere = r.IntroducedElsewhere(t.changed[dir], fileURI)
	}
	t.mu.Unlock()
	return res.WithTypes(r.Introduced(p.Abs()), elsewhere)
}

// Removed records that the call deleted p (or moved it away).
func (t *TypeCheck) Removed(p workspace.Path) {
	if t == nil {
		return
	}
	dir := filepath.Dir(p.Abs())
	if t.runs[dir] == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.written[dir] == nil {
		t.written[dir] = map[string][]byte{}
	}
	t.written[dir][p.Abs()] = nil
}

// Done ends the call's part in the check: the findings of what it wrote
// are published when ready; a package it wrote nothing in is not.
func (t *TypeCheck) Done() {
	if t == nil {
		return
	}
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return
	}
	t.done = true
	written := t.written
	t.mu.Unlock()
	for dir, run := range t.runs {
		if w := written[dir]; len(w) > 0 {
			run.Commit(w)
		} else {
			run.Drop()
		}
	}
	t.e.s.typeChecks.remove(t)
}

// fileURI is the file:// URI of an absolute path, as workspace.Path.URI
// makes it.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// goTypesWait is the type check's budget.
func (a *Agent) goTypesWait() time.Duration {
	if a.opts.GoTypesWait > 0 {
		return a.opts.GoTypesWait
	}
	return DefaultGoTypesWait
}

// goTypesStatus is /context's line about the Go type check.
func (s *Session) goTypesStatus() string {
	o := s.a.opts
	switch {
	case o.GoTypes == nil && o.GoTypesOff != "":
		return "\nGo type check: off (" + o.GoTypesOff + ")."
	case o.GoTypes == nil:
		return "" // not configured (tests)
	}
	if err := o.GoTypes.Available(); err != nil {
		return "\nGo type check: off (no Go toolchain found); Go files get the syntax lint only."
	}
	line := fmt.Sprintf("\nGo type check: on (the approval waits up to %s for it)", s.a.goTypesWait())
	if mem, mods := o.GoTypes.Memory(); mods > 0 {
		line += fmt.Sprintf("; dependency information of %d module(s) cached, about %.1f MiB", mods, float64(mem)/(1<<20))
	}
	line += "."
	if skips := s.env.diag.TypeSkips(); len(skips) > 0 {
		line += "\nSyntax only (no type check) where: " + strings.Join(skips, "; ") + "."
	}
	return line
}
