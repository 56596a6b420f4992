package diagnostics

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// TestWireIsLSP: a diagnostic with every LSP field set, and one with only
// the fields lint fills, encode to the same bytes as go.lsp.dev's type, so
// that the editor receives exactly LSP's Diagnostic.
func TestWireIsLSP(t *testing.T) {
	t.Parallel()
	rng := protocol.Range{Start: protocol.Position{Line: 3, Character: 7}, End: protocol.Position{Line: 4, Character: 0}}
	full := protocol.Diagnostic{
		Range: rng, Severity: protocol.DiagnosticSeverityWarning, Code: "E042",
		CodeDescription: &protocol.CodeDescription{Href: "https://example.invalid/E042"},
		Source:          lint.Source, Message: "unexpected \"}\" <here> & there",
		Tags: []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary, protocol.DiagnosticTagDeprecated},
		RelatedInformation: []protocol.DiagnosticRelatedInformation{{
			Location: protocol.Location{URI: "file:///w/a.json", Range: rng}, Message: "opened here",
		}},
	}
	bare := protocol.Diagnostic{Range: rng, Severity: protocol.DiagnosticSeverityError, Code: int32(3), Source: lint.Source, Message: "syntax error"}
	res := lint.Result{Language: lint.LanguageJSON, Introduced: []protocol.Diagnostic{full}, Preexisting: []protocol.Diagnostic{bare}}
	want, err := json.Marshal(res.Diagnostics())
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(wire(res.Diagnostics()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wire form differs from LSP's:\n got %s\nwant %s", got, want)
	}
	if got, _ := json.Marshal(wire(lint.Result{}.Diagnostics())); string(got) != "[]" {
		t.Errorf("an empty set encodes as %s, want [] (it clears the editor's set)", got)
	}
}

// notifier records the notifications a Publisher sends.
type notifier struct {
	mu   sync.Mutex
	sent []acp.PublishDiagnosticsParams
	ch   chan struct{}
}

func (n *notifier) Notify(method string, params any) error {
	if method != acp.MethodPublishDiagnostics {
		panic("unexpected notification " + method)
	}
	n.mu.Lock()
	n.sent = append(n.sent, *params.(*acp.PublishDiagnosticsParams))
	n.mu.Unlock()
	select {
	case n.ch <- struct{}{}:
	default:
	}
	return nil
}

func (n *notifier) all() []acp.PublishDiagnosticsParams {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]acp.PublishDiagnosticsParams(nil), n.sent...)
}

// open returns a publisher on a fresh workspace holding a.json with
// content, and the file's path.
func open(t *testing.T, content string) (*Publisher, *notifier, workspace.Path) {
	t.Helper()
	return openWith(t, content, Options{Publish: true})
}

// openWith is open with the options o (its workspace, linter and notifier
// filled in).
func openWith(t *testing.T, content string, o Options) (*Publisher, *notifier, workspace.Path) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, nil, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	p, err := ws.Resolve("a.json")
	if err != nil {
		t.Fatal(err)
	}
	n := &notifier{ch: make(chan struct{}, 16)}
	o.SessionID, o.Workspace, o.Linter, o.Notifier = "sess_1", ws, &lint.Linter{}, n
	pub := New(o)
	t.Cleanup(pub.Close)
	return pub, n, p
}

// TestRelintOnDiskChange: after the agent wrote a broken file, the user's fix
// on disk is re-linted and its empty set published with the next version;
// deleting the file clears its set.
func TestRelintOnDiskChange(t *testing.T) {
	t.Parallel()
	const broken = `{"a": }`
	pub, n, p := open(t, broken)
	linter := &lint.Linter{}
	pub.Report(p, []byte(broken), linter.DeltaFile(p.Abs(), []byte(`{"a": 1}`), []byte(broken)))
	if err := os.WriteFile(p.Abs(), []byte(`{"a": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pub.onChange([]string{p.Abs()})
	if err := os.Remove(p.Abs()); err != nil {
		t.Fatal(err)
	}
	pub.onChange([]string{p.Abs()})
	sent := n.all()
	if len(sent) != 3 {
		t.Fatalf("published %d times, want 3 (write, fix, delete): %+v", len(sent), sent)
	}
	for i, s := range sent {
		if s.SessionID != "sess_1" || s.URI != p.URI() || s.Version == nil || *s.Version != i+1 {
			t.Errorf("publication %d = session %q uri %q version %v, want sess_1 %s %d", i, s.SessionID, s.URI, s.Version, p.URI(), i+1)
		}
	}
	if len(sent[0].Diagnostics) != 1 || sent[0].Diagnostics[0].Severity != 1 {
		t.Errorf("the broken write published %+v, want one error", sent[0].Diagnostics)
	}
	if sent[1].Diagnostics == nil || len(sent[1].Diagnostics) != 0 || sent[2].Diagnostics == nil || len(sent[2].Diagnostics) != 0 {
		t.Errorf("the fix and the deletion published %+v and %+v, want empty sets", sent[1].Diagnostics, sent[2].Diagnostics)
	}
}

// TestNothingPublishedUnlessAsked: for a client that did not ask for our
// extension (Options.Publish false) a write and a change on disk publish
// nothing, and the change still reaches the session's staleness.
func TestNothingPublishedUnlessAsked(t *testing.T) {
	t.Parallel()
	const broken = `{"a": }`
	var mu sync.Mutex
	var changed []string
	pub, n, p := openWith(t, broken, Options{Changed: func(paths ...string) {
		mu.Lock()
		changed = append(changed, paths...)
		mu.Unlock()
	}})
	pub.Report(p, []byte(broken), (&lint.Linter{}).DeltaFile(p.Abs(), []byte(`{}`), []byte(broken)))
	if err := os.WriteFile(p.Abs(), []byte(`{"a": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pub.onChange([]string{p.Abs()})
	if sent := n.all(); len(sent) != 0 {
		t.Errorf("published %d times to a client that did not ask: %+v", len(sent), sent)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changed) != 1 || changed[0] != p.Abs() {
		t.Errorf("staleness saw %q, want the changed file", changed)
	}
}

// TestNoRelintAfterClose: a change that reaches the publisher after the
// session closed is not re-linted or published.
func TestNoRelintAfterClose(t *testing.T) {
	t.Parallel()
	const broken = `{"a": }`
	pub, n, p := open(t, broken)
	pub.Report(p, []byte(broken), (&lint.Linter{}).DeltaFile(p.Abs(), []byte(`{}`), []byte(broken)))
	pub.Close()
	if err := os.WriteFile(p.Abs(), []byte(`{"a": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pub.onChange([]string{p.Abs()})
	if sent := n.all(); len(sent) != 1 {
		t.Errorf("published %d times, want only the write's: %+v", len(sent), sent)
	}
	pub.Close() // idempotent
}

// TestWatcherRepublishes drives the real watcher: the fix written on disk
// reaches the editor without the agent doing anything.
func TestWatcherRepublishes(t *testing.T) {
	t.Parallel()
	const broken = `{"a": }`
	pub, n, p := open(t, broken)
	pub.Report(p, []byte(broken), (&lint.Linter{}).DeltaFile(p.Abs(), []byte(`{}`), []byte(broken)))
	<-n.ch // the write's publication
	// The watcher starts in the background; write the fix (atomically, so
	// that no half-written file is linted) until it is seen.
	spare := t.TempDir()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		tmp := filepath.Join(spare, "a.json")
		if err := os.WriteFile(tmp, []byte(`{"a": `+string(rune('0'+i%10))+`}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p.Abs()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-n.ch:
			sent := n.all()
			if last := sent[len(sent)-1]; len(last.Diagnostics) != 0 || *last.Version < 2 {
				t.Errorf("after the fix: %+v, want an empty set of a later version", last)
			}
			return
		case <-tick.C:
		case <-deadline:
			t.Fatal("the fix on disk was never republished")
		}
	}
}
