// Package diagnostics publishes the lint of a session's files to the editor
// as [acp.MethodPublishDiagnostics] notifications, and owns the file watcher
// that re-lints a published file when it changes on disk (the user fixing
// it), so that the editor's set stays current. It also runs the session's
// Go type checks (types.go): one per package directory at a time, a newer
// edit's check replacing an older one, their findings published as the
// file's go-types diagnostics next to its syntax diagnostics.
package diagnostics

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"slices"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/lint/gotypes"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// MaxRelintBytes caps the files the watcher re-lints and the files whose
// content is learnt.
const MaxRelintBytes = 4 << 20

// maxPublished caps the diagnostics published for one file.
const maxPublished = 200

// Notifier sends an extension notification to the editor; *acp.Client is
// one.
type Notifier interface {
	Notify(method string, params any) error
}

// Options are a [Publisher]'s dependencies.
type Options struct {
	SessionID string
	Workspace *workspace.Workspace
	// Linter lints the changed files and learns read ones; shared by the
	// agent's sessions.
	Linter *lint.Linter
	// Types type-checks Go edits (shared by the agent's sessions); nil: no
	// type check, syntax only.
	Types    *gotypes.Checker
	Notifier Notifier
	// Publish sends the diagnostics to the editor: it asked for them
	// (acp.WantsHermesExtension). False computes everything the same (the
	// type check's overlay, the watcher's staleness feed) and sends
	// nothing.
	Publish bool
	// Changed receives every path the watcher sees change (the session's
	// staleness); nil: none.
	Changed func(absPaths ...string)
	Log     *slog.Logger
}

// Publisher publishes one session's diagnostics. It remembers, per file it
// published, the content last linted, so that a change on disk is re-linted
// against it, and the file's current syntax and type diagnostics, which it
// publishes together. It is safe for concurrent use; no lock is held while
// it lints, notifies or logs.
type Publisher struct {
	sessionID string
	ws        *workspace.Workspace
	linter    *lint.Linter
	checker   *gotypes.Checker
	notifier  Notifier
	publishes bool // Options.Publish
	changed   func(absPaths ...string)
	log       *slog.Logger

	ctx    context.Context // cancelled by Close: stops re-lints, learning and type checks
	cancel context.CancelFunc
	wg     sync.WaitGroup // the watcher's start-up goroutine, Learn's and the type checks'

	mu      sync.Mutex // guards the fields below
	files   map[string][]byte
	version map[string]int
	// syntax and types are each file's current diagnostics (by absolute
	// path): the syntax lint's and the type check's.
	syntax  map[string][]protocol.Diagnostic
	types   map[string][]protocol.Diagnostic
	watcher *workspace.Watcher
	started bool
	closed  bool

	tmu  sync.Mutex // guards the type checks' state (types.go)
	pkgs map[string]*pkgTypes
	// skips counts the reasons type checks were skipped, for /context.
	skips map[string]string
}

// New returns the publisher of a session; call Close when it ends.
func New(o Options) *Publisher {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Changed == nil {
		o.Changed = func(...string) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Publisher{
		sessionID: o.SessionID, ws: o.Workspace, linter: o.Linter, checker: o.Types, notifier: o.Notifier, publishes: o.Publish, changed: o.Changed, log: o.Log,
		ctx: ctx, cancel: cancel, files: map[string][]byte{}, version: map[string]int{},
		syntax: map[string][]protocol.Diagnostic{}, types: map[string][]protocol.Diagnostic{},
		pkgs: map[string]*pkgTypes{}, skips: map[string]string{},
	}
}

// Learn has the linter learn content, the text of p that the model just
// read, in the background (a copy is taken): the lint of a later edit of p
// then parses only what the edit changed. It does nothing for a file whose
// lint would not speed up, one too big to re-lint, or once the publisher is
// closing.
func (p *Publisher) Learn(path workspace.Path, content []byte) {
	if !lint.Learns(path.Abs(), len(content)) || len(content) > MaxRelintBytes {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	content = bytes.Clone(content)
	p.wg.Go(func() {
		if p.ctx.Err() == nil {
			p.linter.Learn(path.Abs(), content)
		}
	})
}

// Report publishes res, the lint of content just written to path, as the
// file's syntax diagnostics, next to its current type diagnostics (the
// go-types findings res may carry are left out: the type check publishes
// its own, see types.go), and makes sure the watcher runs so that a later
// change on disk is re-linted. A result of no language is ignored.
func (p *Publisher) Report(path workspace.Path, content []byte, res lint.Result) {
	if res.Language == lint.LanguageNone {
		return
	}
	p.remember(path, content)
	p.setSyntax(path, res)
	p.publish(path)
}

// setSyntax records res as the file's syntax diagnostics.
func (p *Publisher) setSyntax(path workspace.Path, res lint.Result) {
	ds := res.Diagnostics()
	ds = slices.DeleteFunc(ds, func(d protocol.Diagnostic) bool { return d.Code == lint.CodeGoTypes })
	p.mu.Lock()
	p.syntax[path.Abs()] = ds
	p.mu.Unlock()
}

// publish sends the file's full current diagnostic set: its syntax
// diagnostics, then its type diagnostics; nothing without Options.Publish.
func (p *Publisher) publish(path workspace.Path) {
	if !p.publishes {
		return
	}
	uri := path.URI()
	p.mu.Lock()
	p.version[uri]++
	v := p.version[uri]
	ds := slices.Concat(p.syntax[path.Abs()], p.types[path.Abs()])
	p.mu.Unlock()
	params := &acp.PublishDiagnosticsParams{SessionID: p.sessionID, URI: uri, Version: &v, Diagnostics: wire(ds)}
	if err := p.notifier.Notify(acp.MethodPublishDiagnostics, params); err != nil {
		p.log.Debug("publish diagnostics", "uri", uri, "error", err)
	}
}

// wire is ds in their LSP wire form, at most maxPublished (a garbage file
// can have thousands); never nil.
func wire(ds []protocol.Diagnostic) []acp.Diagnostic {
	if len(ds) > maxPublished {
		ds = ds[:maxPublished]
	}
	out := make([]acp.Diagnostic, 0, len(ds))
	for _, d := range ds {
		w := acp.Diagnostic{
			Range: acp.DiagnosticRange{
				Start: acp.DiagnosticPosition{Line: d.Range.Start.Line, Character: d.Range.Start.Character},
				End:   acp.DiagnosticPosition{Line: d.Range.End.Line, Character: d.Range.End.Character},
			},
			Severity: int(d.Severity),
			Code:     d.Code,
			Source:   d.Source,
			Message:  d.Message,
			Data:     d.Data,
		}
		if d.CodeDescription != nil {
			w.CodeDescription = &acp.DiagnosticCodeDescription{Href: string(d.CodeDescription.Href)}
		}
		for _, t := range d.Tags {
			w.Tags = append(w.Tags, int(t))
		}
		for _, ri := range d.RelatedInformation {
			r := ri.Location.Range
			w.RelatedInformation = append(w.RelatedInformation, acp.DiagnosticRelatedInformation{
				Location: acp.DiagnosticLocation{URI: string(ri.Location.URI), Range: acp.DiagnosticRange{
					Start: acp.DiagnosticPosition{Line: r.Start.Line, Character: r.Start.Character},
					End:   acp.DiagnosticPosition{Line: r.End.Line, Character: r.End.Character},
				}},
				Message: ri.Message,
			})
		}
		out = append(out, w)
	}
	return out
}

// remember keeps the linted content and makes sure the watcher runs.
func (p *Publisher) remember(path workspace.Path, content []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if len(content) <= MaxRelintBytes {
		p.files[path.Abs()] = bytes.Clone(content)
	}
	if p.watcher != nil {
		p.watcher.Touch(path)
		return
	}
	if p.started {
		return
	}
	p.started = true
	// Walking a large tree takes a while: start the watcher off the turn.
	p.wg.Go(func() { p.startWatcher(path) })
}

func (p *Publisher) startWatcher(first workspace.Path) {
	w, err := workspace.NewWatcher(p.ws, workspace.WatchOptions{OnChange: p.onChange, Log: p.log})
	if err != nil {
		p.log.Warn("file watcher unavailable; external changes are not re-linted", "error", err)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.Close()
		return
	}
	p.watcher = w
	p.mu.Unlock()
	w.Touch(first)
}

// onChange is the watcher's callback: external changes feed staleness, and
// published files are re-linted and republished, until Close.
func (p *Publisher) onChange(paths []string) {
	p.changed(paths...)
	for _, abs := range paths {
		if p.ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		before, ok := p.files[abs]
		p.mu.Unlock()
		if !ok {
			continue
		}
		path, err := p.ws.Resolve(abs)
		if err != nil {
			continue
		}
		after, err := p.ws.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			// Deleted: clear its diagnostics.
			p.mu.Lock()
			delete(p.files, abs)
			delete(p.syntax, abs)
			delete(p.types, abs)
			p.mu.Unlock()
			p.publish(path)
			p.recheckTypes(abs, before, nil)
			continue
		}
		if err != nil || len(after) > MaxRelintBytes || bytes.Equal(before, after) {
			continue // unreadable, too big, or our own write
		}
		res, err := p.linter.DeltaFileContext(p.ctx, abs, before, after)
		if err != nil {
			return // closing
		}
		p.mu.Lock()
		p.files[abs] = after
		p.mu.Unlock()
		p.setSyntax(path, res)
		p.publish(path)
		p.recheckTypes(abs, before, after)
	}
}

// Close cancels a re-lint under way, stops the watcher and waits for the
// publisher's goroutines. It is idempotent.
func (p *Publisher) Close() {
	p.cancel()
	p.mu.Lock()
	p.closed = true
	w := p.watcher
	p.watcher = nil
	p.mu.Unlock()
	if w != nil {
		w.Close()
	}
	p.wg.Wait() // a watcher started meanwhile sees closed and closes itself
}
