package diagnostics

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/lint/gotypes"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// The session's Go type checks.
//
// A tool call's Go changes are checked per package directory (a TypeRun)
// from before they are approved. One check of a directory runs at a time:
// a newer call's check cancels the older one, and takes over its baseline,
// so that the errors an edit introduced are not lost when a later edit
// cancels its check before it finished. The baseline of a directory is
// pending: the contents, before them, of the files written by calls whose
// check has not delivered yet; a check compares the package with those
// contents against the package after its own changes.
//
// The editor's go-types diagnostics of a file are the errors agent edits
// introduced that are still there: a delivered check shows the errors it
// found introduced, and keeps showing an error shown before when it is
// still there (matched through the edit); a check after the user changed a
// file on disk only keeps errors, so a fix clears them.

// Change is one file of a tool call's proposed changes, for the type check.
type Change struct {
	// Path is the changed file.
	Path workspace.Path
	// Before and After are its text before and after the change; nil for a
	// file that does not exist then (a new file, a deleted one).
	Before, After []byte
}

// TypeRun is the type check of one tool call's changes in one package
// directory. The call waits for it (Wait), then says what it wrote
// (Commit) or that it wrote nothing (Drop); its findings are published
// when the changes are written and the check finished, whichever is last.
type TypeRun struct {
	p       *Publisher
	dir     string
	file    string            // a changed file, for gotypes.Edit.File
	changes map[string]Change // by absolute path
	user    bool              // a re-check after a change on disk: it introduces nothing

	// Guarded by p.tmu.
	state   runState
	att     *attempt
	written map[string][]byte // what Commit said was written
}

// runState is where a TypeRun is in its life.
type runState int

const (
	runProposed  runState = iota // not written yet
	runCommitted                 // written; publishes when it finishes
	runDropped                   // never written
	runDelivered                 // published
)

// attempt is one check of a TypeRun; a TypeRun is checked again when what
// it checks changes (a newer edit's baseline, content written differently).
type attempt struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when res and ok are set
	res    gotypes.Result
	ok     bool // finished, not cancelled
}

// pkgTypes is a package directory's type checks.
type pkgTypes struct {
	current *TypeRun
	pending map[string][]byte
}

// CheckTypes starts the type check of a tool call's changes, one TypeRun
// per package directory (the map's key), or returns nil when the session
// has no type checker or is closing. The changes must be Go files.
func (p *Publisher) CheckTypes(changes []Change) map[string]*TypeRun {
	if p.checker == nil || p.ctx.Err() != nil || len(changes) == 0 {
		return nil
	}
	byDir := map[string][]Change{}
	for _, c := range changes {
		dir := filepath.Dir(c.Path.Abs())
		byDir[dir] = append(byDir[dir], c)
	}
	runs := map[string]*TypeRun{}
	p.tmu.Lock()
	defer p.tmu.Unlock()
	for dir, cs := range byDir {
		r := &TypeRun{p: p, dir: dir, file: cs[0].Path.Abs(), changes: map[string]Change{}}
		for _, c := range cs {
			r.changes[c.Path.Abs()] = c
		}
		pt := p.pkg(dir)
		if cur := pt.current; cur != nil && cur.att != nil {
			cur.att.cancel() // a newer write cancels an older check
			cur.att = nil
		}
		pt.current = r
		p.launch(pt, r)
		runs[dir] = r
	}
	return runs
}

// pkg returns a directory's state; p.tmu must be held.
func (p *Publisher) pkg(dir string) *pkgTypes {
	pt := p.pkgs[dir]
	if pt == nil {
		pt = &pkgTypes{pending: map[string][]byte{}}
		p.pkgs[dir] = pt
	}
	return pt
}

// launch starts a check of r, the directory's current run: the package
// with the baseline against the package after r's changes, as proposed or
// as written. The files the agent wrote or linted in the directory are
// laid over the disk in both, as last seen: an editor that wrote them to
// its buffers may not have saved them yet. p.tmu must be held.
func (p *Publisher) launch(pt *pkgTypes, r *TypeRun) {
	e := gotypes.Edit{File: r.file, Before: map[string][]byte{}, After: map[string][]byte{}}
	p.mu.Lock()
	for path, content := range p.files {
		if filepath.Dir(path) == r.dir {
			e.Before[path], e.After[path] = content, content
		}
	}
	p.mu.Unlock()
	maps.Copy(e.Before, pt.pending)
	for path, c := range r.changes {
		if _, ok := pt.pending[path]; !ok {
			e.Before[path] = c.Before
		}
		e.After[path] = c.After
		if r.state != runProposed {
			if text, ok := r.written[path]; ok {
				e.After[path] = text
			} else {
				e.After[path] = e.Before[path] // not made
			}
		}
	}
	ctx, cancel := context.WithCancel(p.ctx)
	a := &attempt{cancel: cancel, done: make(chan struct{})}
	r.att = a
	if !p.goTracked(func() {
		start := time.Now()
		res, err := p.checker.Check(ctx, e)
		p.log.Debug("go type check", "dir", r.dir, "took", time.Since(start), "error", err,
			"skipped", res.Reason, "introduced", res.IntroducedCount())
		p.finish(r, a, res, err == nil && ctx.Err() == nil)
	}) {
		cancel()
		close(a.done)
	}
}

// goTracked runs f on a goroutine that Close waits for, unless the
// publisher is closing; it reports whether f runs.
func (p *Publisher) goTracked(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Go(f)
	return true
}

// finish records the end of an attempt and publishes its findings when
// its run is written and still the directory's current one.
func (p *Publisher) finish(r *TypeRun, a *attempt, res gotypes.Result, ok bool) {
	a.cancel()
	a.res, a.ok = res, ok
	close(a.done)
	if ok && res.Skipped {
		p.noteSkip(res.Reason, res.Dir)
	}
	p.tmu.Lock()
	deliver := ok && r.att == a && r.state == runCommitted && p.pkgs[r.dir] != nil && p.pkgs[r.dir].current == r
	if deliver {
		p.delivered(r)
	}
	p.tmu.Unlock()
	if deliver {
		p.publishTypes(res, !r.user)
	}
}

// delivered ends a run that is about to be published; p.tmu must be held.
func (p *Publisher) delivered(r *TypeRun) {
	pt := p.pkgs[r.dir]
	r.state = runDelivered
	pt.current = nil
	clear(pt.pending) // the run's check covered all of it
}

// Wait waits until the run's check finished, ctx is done or deadline
// passed, and returns its result and whether it finished.
func (r *TypeRun) Wait(ctx context.Context, deadline time.Time) (gotypes.Result, bool) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		r.p.tmu.Lock()
		a := r.att
		r.p.tmu.Unlock()
		if a == nil {
			return gotypes.Result{}, false
		}
		select {
		case <-a.done:
			r.p.tmu.Lock()
			again := r.att != a && r.att != nil
			r.p.tmu.Unlock()
			if again {
				continue // checked again meanwhile: wait for the new check
			}
			return a.res, a.ok
		case <-ctx.Done():
			return gotypes.Result{}, false
		case <-timer.C:
			return gotypes.Result{}, false
		}
	}
}

// Commit says the call wrote its changes: written holds, by absolute
// path, the text it wrote (nil for a file it deleted); a change not in
// written was not made. The run's findings are published when its check
// finishes; it is checked again first when what was written is not what
// was proposed, or when a newer run meanwhile replaced it.
func (r *TypeRun) Commit(written map[string][]byte) {
	p := r.p
	p.tmu.Lock()
	defer p.tmu.Unlock()
	if r.state != runProposed {
		return
	}
	pt := p.pkg(r.dir)
	same := len(written) == len(r.changes)
	for path, c := range r.changes {
		text, ok := written[path]
		if !ok {
			continue
		}
		if _, had := pt.pending[path]; !had {
			pt.pending[path] = c.Before
		}
		if (text == nil) != (c.After == nil) || string(text) != string(c.After) {
			same = false
		}
	}
	for path := range written {
		if _, ok := r.changes[path]; !ok {
			same = false
		}
	}
	r.state = runCommitted
	r.written = maps.Clone(written)
	if len(written) == 0 {
		r.drop(pt)
		return
	}
	switch cur := pt.current; {
	case cur != r:
		// A newer run replaced this one: it must now see these writes
		// in its baseline.
		r.state = runDelivered
		if cur != nil {
			if cur.att != nil {
				cur.att.cancel()
			}
			p.launch(pt, cur)
		} else {
			p.startPending(pt, r.dir, r.file)
		}
	case !same || r.att == nil:
		if r.att != nil {
			r.att.cancel()
		}
		p.launch(pt, r) // committed: checks the disk
	default:
		select {
		case <-r.att.done:
			if r.att.ok {
				p.delivered(r)
				res, agent := r.att.res, !r.user
				p.goTracked(func() { p.publishTypes(res, agent) }) // not under p.tmu
				return
			}
			p.launch(pt, r)
		default: // finish delivers
		}
	}
}

// Drop says the call wrote none of its changes.
func (r *TypeRun) Drop() {
	p := r.p
	p.tmu.Lock()
	defer p.tmu.Unlock()
	if r.state != runProposed {
		return
	}
	r.drop(p.pkg(r.dir))
}

// drop ends a run that wrote nothing: when it was the directory's current
// run, the writes pending before it are checked again on their own.
// p.tmu must be held.
func (r *TypeRun) drop(pt *pkgTypes) {
	r.state = runDropped
	if r.att != nil {
		r.att.cancel()
		r.att = nil
	}
	if pt.current == r {
		pt.current = nil
		if len(pt.pending) > 0 {
			r.p.startPending(pt, r.dir, r.file)
		}
	}
}

// startPending checks the directory's pending writes on their own.
// p.tmu must be held.
func (p *Publisher) startPending(pt *pkgTypes, dir, file string) {
	if len(pt.pending) == 0 {
		return
	}
	for path := range pt.pending {
		file = path
		break
	}
	r := &TypeRun{p: p, dir: dir, file: file, changes: map[string]Change{}, state: runCommitted}
	pt.current = r
	p.launch(pt, r)
}

// recheckTypes checks the package of abs again after the user changed it
// on disk (before and after are its contents; nil after: deleted), when
// the package has type diagnostics shown and no agent check runs there:
// the errors fixed go away, nothing new is added.
func (p *Publisher) recheckTypes(abs string, before, after []byte) {
	if p.checker == nil {
		return
	}
	dir := filepath.Dir(abs)
	p.mu.Lock()
	shown := false
	for path := range p.types {
		if filepath.Dir(path) == dir {
			shown = true
			break
		}
	}
	p.mu.Unlock()
	if !shown {
		return
	}
	p.tmu.Lock()
	defer p.tmu.Unlock()
	pt := p.pkg(dir)
	if pt.current != nil || len(pt.pending) > 0 {
		return // the agent's check reads the disk anyway
	}
	r := &TypeRun{p: p, dir: dir, file: abs, user: true, state: runCommitted,
		changes: map[string]Change{abs: {Before: before, After: after}}, written: map[string][]byte{abs: after}}
	pt.current = r
	p.launch(pt, r)
}

// publishTypes makes a delivered check's findings the go-types
// diagnostics of its package's files and publishes the files whose set
// changed. agent says the checked changes were the agent's: the errors
// they introduced are shown; otherwise only errors already shown stay.
func (p *Publisher) publishTypes(r gotypes.Result, agent bool) {
	if r.Skipped {
		return
	}
	p.mu.Lock()
	var changed, remember []string
	in := map[string]bool{}
	for _, f := range r.Files {
		in[f.Path] = true
		prev := p.types[f.Path]
		var keep []protocol.Diagnostic
		for _, fd := range f.Findings {
			if fd.Introduced && agent || !fd.Introduced && wasShown(prev, fd) {
				keep = append(keep, fd.Diagnostic)
			}
		}
		if slices.EqualFunc(keep, prev, sameDiagnostic) {
			continue
		}
		changed = append(changed, f.Path)
		if len(keep) == 0 {
			delete(p.types, f.Path)
			continue
		}
		p.types[f.Path] = keep
		if _, ok := p.files[f.Path]; !ok {
			remember = append(remember, f.Path)
		}
	}
	for path := range p.types {
		if filepath.Dir(path) == r.Dir && !in[path] {
			delete(p.types, path)
			changed = append(changed, path)
		}
	}
	p.mu.Unlock()
	slices.Sort(changed)
	for _, abs := range changed {
		path, err := p.ws.Resolve(abs)
		if err != nil {
			continue
		}
		if slices.Contains(remember, abs) {
			// Its content is what a later change on disk is checked
			// against, and the watcher must see it.
			if content, err := p.ws.ReadFile(path); err == nil {
				p.remember(path, content)
			}
		}
		p.publish(path)
	}
}

// wasShown reports whether a finding that was there before the edit was
// among the diagnostics shown for its file.
func wasShown(prev []protocol.Diagnostic, fd gotypes.Finding) bool {
	for _, d := range prev {
		if d.Range == fd.Before && d.Message == fd.Diagnostic.Message {
			return true
		}
	}
	return false
}

// sameDiagnostic compares the parts of two diagnostics the editor shows.
func sameDiagnostic(a, b protocol.Diagnostic) bool {
	return a.Range == b.Range && a.Message == b.Message && a.Code == b.Code
}

// noteSkip remembers why a type check was skipped.
func (p *Publisher) noteSkip(reason, dir string) {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	if _, ok := p.skips[reason]; !ok && len(p.skips) < 16 {
		p.skips[reason] = dir
	}
}

// TypeSkips returns why type checks of this session were skipped, once
// per reason, with the directory it was first seen in: "not in a Go
// module (/w/scripts)".
func (p *Publisher) TypeSkips() []string {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	out := make([]string, 0, len(p.skips))
	for reason, dir := range p.skips {
		out = append(out, fmt.Sprintf("%s (%s)", reason, dir))
	}
	slices.Sort(out)
	return out
}

// TypesOn reports whether the session type-checks Go edits.
func (p *Publisher) TypesOn() bool { return p.checker != nil }
