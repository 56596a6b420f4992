// Package newtool_test is the acceptance test of the tool contract (issue
// #10): two tools that neither registry nor agent has heard of are defined
// here, entirely — their facts, typed parameters, typed results, title and
// rendering — registered through agent.Options like the built-in tools
// (declared in Options.Registry, bound to each session by BindTools), and
// driven by a scripted model through the agent to an in-memory editor. What
// the editor and the model receive shows that the agent and the pipeline
// follow the tools' own entries: kind, title, status and content in the
// editor, the batch plan, and the guardrails.
package newtool_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/internal/schematest"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// ---- The new tools: everything about them lives in this file. ----

// quote fetches a price from a catalog: a fetch the editor shows as one,
// read-only, idempotent and safe to run alongside other parallel-safe calls.
const quoteName = "quote"

type quoteParams struct {
	Symbol   string `json:"symbol"`
	Currency string `json:"currency"`
}

type quoteResult struct {
	Symbol   string `json:"symbol"`
	Price    string `json:"price"`
	Currency string `json:"currency"`
}

func quoteEntry() registry.Entry {
	return registry.Entry{
		Name: quoteName, Toolset: "market", Description: "Fetch the last price of a ticker symbol.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"symbol":   map[string]any{"type": "string"},
				"currency": map[string]any{"type": "string"},
			},
			"required": []any{"symbol"},
		},
		Kind: registry.KindFetch, ReadOnly: true, Idempotent: true, ParallelSafe: true,
		Title: func(args map[string]any) string {
			s, _ := args["symbol"].(string)
			if s == "" {
				return ""
			}
			return "quote " + s
		},
		Render: func(_ map[string]any, r registry.Result) string {
			q, ok := r.Value.(quoteResult)
			if !ok {
				return ""
			}
			return fmt.Sprintf("📈 **%s** %s %s", q.Symbol, q.Price, q.Currency)
		},
	}
}

// bindQuote binds quote to a catalog; gate (may be nil) sees every run.
func bindQuote(catalog map[string]string, gate *gate) registry.Handler {
	return func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		var p quoteParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		gate.pass(ctx)
		price, ok := catalog[p.Symbol]
		if !ok {
			return registry.Errorf("unknown symbol %q", p.Symbol), nil
		}
		if p.Currency == "" {
			p.Currency = "USD"
		}
		return registry.OK(quoteResult{Symbol: p.Symbol, Price: price, Currency: p.Currency}), nil
	}
}

// checksum hashes a file of the session's workspace: a path-scoped read,
// bound to the session's workspace and file access.
const checksumName = "checksum"

type checksumParams struct {
	Path string `json:"path"`
}

type checksumResult struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	Sum   string `json:"sha256"`
}

func checksumEntry() registry.Entry {
	return registry.Entry{
		Name: checksumName, Toolset: "files-extra", Description: "SHA-256 of a workspace file.",
		Schema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"path": map[string]any{"type": "string"}},
			"required":   []any{"path"},
		},
		Kind: registry.KindRead, ReadOnly: true, Idempotent: true, PathArg: "path",
		Title: func(args map[string]any) string {
			p, _ := args["path"].(string)
			return "checksum: " + filepath.Base(p)
		},
		Render: func(_ map[string]any, r registry.Result) string {
			c, ok := r.Value.(checksumResult)
			if !ok {
				return ""
			}
			return fmt.Sprintf("`%s…` %s (%d bytes)", c.Sum[:12], filepath.Base(c.Path), c.Bytes)
		},
	}
}

// bindChecksum binds checksum to one session's workspace and files.
func bindChecksum(env *agent.Env, gate *gate) registry.Handler {
	return func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		var p checksumParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		wp, err := env.Workspace().Resolve(p.Path)
		if err != nil {
			return registry.Errorf("cannot checksum %s: %v", p.Path, err), nil
		}
		gate.pass(ctx)
		b, err := env.Files().Read(ctx, wp)
		if err != nil {
			return registry.Errorf("cannot checksum %s: %v", p.Path, err), nil
		}
		sum := sha256.Sum256(b)
		return registry.OK(checksumResult{Path: wp.Abs(), Bytes: len(b), Sum: hex.EncodeToString(sum[:])}), nil
	}
}

// ---- Concurrency probe ----

// gate records how many handler runs overlap. Each run waits until want
// runs are inside at once (then all proceed), its context ends, or hold
// has passed. hold only bounds the wait: it never decides an assertion
// when the runs really overlap (they then meet and leave at once); when
// they cannot overlap, each run leaves after hold and maxIn stays 1.
type gate struct {
	want int
	hold time.Duration

	mu    sync.Mutex
	in    int
	maxIn int
	runs  int
	met   chan struct{} // closed the first time want runs are inside
	isMet bool
}

func newGate(want int, hold time.Duration) *gate {
	return &gate{want: want, hold: hold, met: make(chan struct{})}
}

func (g *gate) pass(ctx context.Context) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.in++
	g.runs++
	g.maxIn = max(g.maxIn, g.in)
	if g.in == g.want && !g.isMet {
		g.isMet = true
		close(g.met)
	}
	g.mu.Unlock()
	select {
	case <-g.met:
	case <-ctx.Done():
	case <-time.After(g.hold):
	}
	g.mu.Lock()
	g.in--
	g.mu.Unlock()
}

func (g *gate) stats() (maxIn, runs int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.maxIn, g.runs
}

// ---- Harness: an agent with the new tools, a scripted model, a fake editor ----

// scripted is a model.Provider whose replies come from a function of the
// call number and the request; it records every request.
type scripted struct {
	reply func(n int, req model.Request) *model.Reply

	mu   sync.Mutex
	reqs []model.Request
}

func (m *scripted) Name() string { return "scripted" }

func (m *scripted) Stream(_ context.Context, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
	m.mu.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	r := m.reply(n, req)
	if r.Text != "" {
		emit(model.Delta{Text: r.Text})
	}
	return r, nil
}

func (m *scripted) requests() []model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// toolMessages returns the tool results the model read in request n, by
// call id.
func (m *scripted) toolMessages(n int) map[string]model.Message {
	out := map[string]model.Message{}
	for _, msg := range m.requests()[n].Messages {
		if msg.Role == model.RoleTool {
			out[msg.ToolCallID] = msg
		}
	}
	return out
}

// calls is a model reply asking for calls, each given as id, tool, JSON args.
func calls(cs ...[3]string) *model.Reply {
	r := &model.Reply{FinishReason: model.ToolCalls}
	for _, c := range cs {
		r.ToolCalls = append(r.ToolCalls, model.ToolCall{ID: c[0], Name: c[1], Arguments: c[2]})
	}
	return r
}

func done() *model.Reply { return &model.Reply{Text: "done", FinishReason: model.Stop} }

// batches answers a prompt with one model reply per batch, then "done".
func batches(bs ...*model.Reply) *scripted {
	return &scripted{reply: func(n int, _ model.Request) *model.Reply {
		if n < len(bs) {
			return bs[n]
		}
		return done()
	}}
}

type setup struct {
	catalog    map[string]string
	quoteGate  *gate
	fileGate   *gate
	guardrails registry.GuardrailConfig
	caps       acp.ClientCapabilities
}

type run struct {
	t      *testing.T
	editor *acptest.Editor
	model  *scripted
	sid    string
	ws     string
}

// start runs an agent offering quote and checksum with the model m, opens
// a session on a fresh workspace holding files, and returns it.
func start(t *testing.T, m *scripted, s setup, files map[string]string) *run {
	t.Helper()
	check := schematest.Attach(t)
	ws := t.TempDir()
	for name, text := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	declared := registry.New(nil)
	if err := declared.RegisterAll(quoteEntry(), checksumEntry()); err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Options{
		Version:  "test",
		Model:    agent.ModelSetup{Provider: m, Name: "scripted"},
		Registry: declared,
		BindTools: func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
			var out []registry.Entry
			if env.Enabled(quoteName) {
				e := quoteEntry()
				e.Handler = bindQuote(s.catalog, s.quoteGate)
				out = append(out, e)
			}
			if env.Enabled(checksumName) {
				e := checksumEntry()
				e.Handler = bindChecksum(env, s.fileGate)
				out = append(out, e)
			}
			return out, nil
		},
		Toolsets:   []string{"market", "files-extra"},
		Pipeline:   registry.PipelineOptions{Guardrails: s.guardrails},
		HermesHome: t.TempDir(),
	})
	t.Cleanup(func() { a.Close() })
	e := acptest.New(t, a, acptest.Options{Tap: check.Line, Capabilities: s.caps})
	ctx := testCtx(t)
	if _, err := e.Init(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	res, err := e.NewSessionAt(ctx, ws)
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return &run{t: t, editor: e, model: m, sid: res.SessionID, ws: ws}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (r *run) prompt(text string) {
	r.t.Helper()
	stop, err := r.editor.PromptText(testCtx(r.t), r.sid, text)
	if err != nil || stop != acp.StopEndTurn {
		r.t.Fatalf("session/prompt %q = %s, %v; want end_turn", text, stop, err)
	}
}

// announced returns the tool_call the editor received for id.
func (r *run) announced(id string) *acp.ToolCall {
	for _, u := range r.editor.Updates(r.sid) {
		if tc := u.Update.ToolCall; tc != nil && tc.ToolCallID == id {
			return tc
		}
	}
	r.t.Fatalf("no tool_call for %s", id)
	return nil
}

// ended returns the update that ended call id (status completed or failed).
func (r *run) ended(id string) *acp.ToolCallUpdate {
	var last *acp.ToolCallUpdate
	for _, u := range r.editor.Updates(r.sid) {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallID == id && (tu.Status == acp.StatusCompleted || tu.Status == acp.StatusFailed) {
			last = tu
		}
	}
	if last == nil {
		r.t.Fatalf("no completing tool_call_update for %s", id)
	}
	return last
}

// text joins the text items of a tool call's content.
func text(content []acp.ToolCallContent) string {
	var parts []string
	for _, c := range content {
		if c.Content != nil && c.Content.Text != nil {
			parts = append(parts, c.Content.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// order lists "start:<id>" (tool_call) and "end:<id>" (completing update)
// in the order the editor received them.
func (r *run) order() []string {
	var out []string
	for _, u := range r.editor.Updates(r.sid) {
		switch {
		case u.Update.ToolCall != nil:
			out = append(out, "start:"+u.Update.ToolCall.ToolCallID)
		case u.Update.ToolCallUpdate != nil && (u.Update.ToolCallUpdate.Status == acp.StatusCompleted || u.Update.ToolCallUpdate.Status == acp.StatusFailed):
			out = append(out, "end:"+u.Update.ToolCallUpdate.ToolCallID)
		}
	}
	return out
}

// ---- The acceptance tests ----

// TestNewToolShownWithItsOwnFacts: the editor shows each call of the new
// tools with the tool's kind and title, follows checksum's path, and ends
// it with the tool's own rendering of its typed result (completed) or with
// "❌" and the error (failed); the model reads the encoded typed result.
func TestNewToolShownWithItsOwnFacts(t *testing.T) {
	t.Parallel()
	m := batches(calls(
		[3]string{"q_ok", quoteName, `{"symbol":"ACME","currency":"EUR"}`},
		[3]string{"q_bad", quoteName, `{"symbol":"NOPE"}`},
		[3]string{"q_type", quoteName, `{"symbol":["ACME"]}`},
		[3]string{"c_ok", checksumName, `{"path":"src/data.txt"}`},
		[3]string{"c_missing", checksumName, `{"path":"absent.txt"}`},
	))
	r := start(t, m, setup{catalog: map[string]string{"ACME": "12.50"}}, map[string]string{"src/data.txt": "hello\n"})
	r.prompt("prices and sums")

	offered := map[string]bool{}
	for _, d := range m.requests()[0].Tools {
		offered[d.Name] = true
	}
	if !offered[quoteName] || !offered[checksumName] {
		t.Fatalf("tools offered = %v, want quote and checksum", offered)
	}

	// The tool_call: the entry's kind and title, in progress, the checksum's file followed.
	for _, c := range []struct {
		id, title string
		kind      acp.ToolKind
		location  string
	}{
		{"q_ok", "quote ACME", acp.KindFetch, ""},
		{"q_bad", "quote NOPE", acp.KindFetch, ""},
		{"q_type", quoteName, acp.KindFetch, ""}, // the title func gives "" for a non-string symbol: the name
		{"c_ok", "checksum: data.txt", acp.KindRead, filepath.Join(r.ws, "src", "data.txt")},
		{"c_missing", "checksum: absent.txt", acp.KindRead, filepath.Join(r.ws, "absent.txt")},
	} {
		tc := r.announced(c.id)
		if tc.Kind != c.kind || tc.Title != c.title || tc.Status != acp.StatusInProgress {
			t.Errorf("%s: tool_call kind=%q title=%q status=%q, want %q %q in_progress", c.id, tc.Kind, tc.Title, tc.Status, c.kind, c.title)
		}
		var locs []string
		for _, l := range tc.Locations {
			locs = append(locs, l.Path)
		}
		if c.location == "" && len(locs) != 0 || c.location != "" && !slices.Equal(locs, []string{c.location}) {
			t.Errorf("%s: locations = %v, want %q", c.id, locs, c.location)
		}
	}

	// The completion: the tool's rendering, or ❌ and the error message.
	sum := sha256.Sum256([]byte("hello\n"))
	hexSum := hex.EncodeToString(sum[:])
	for _, c := range []struct {
		id      string
		status  acp.ToolCallStatus
		content string
	}{
		{"q_ok", acp.StatusCompleted, "📈 **ACME** 12.50 EUR"},
		{"q_bad", acp.StatusFailed, `❌ unknown symbol "NOPE"`},
		{"q_type", acp.StatusFailed, "❌ quote: 'symbol' must be a string, got list."},
		{"c_ok", acp.StatusCompleted, "`" + hexSum[:12] + "…` data.txt (6 bytes)"},
	} {
		tu := r.ended(c.id)
		if tu.Status != c.status || text(tu.Content) != c.content {
			t.Errorf("%s: completion status=%q content=%q, want %q %q", c.id, tu.Status, text(tu.Content), c.status, c.content)
		}
	}
	if tu := r.ended("c_missing"); tu.Status != acp.StatusFailed || !strings.HasPrefix(text(tu.Content), "❌ cannot checksum absent.txt: ") {
		t.Errorf("c_missing: completion status=%q content=%q, want failed with ❌ cannot checksum absent.txt", tu.Status, text(tu.Content))
	}

	// The model reads the typed results, encoded once, and each tool message says whether the call failed.
	got := m.toolMessages(1)
	wantRead := map[string]struct {
		content string
		isError bool
	}{
		"q_ok":   {`{"symbol":"ACME","price":"12.50","currency":"EUR"}`, false},
		"q_bad":  {`{"error":"unknown symbol \"NOPE\""}`, true},
		"q_type": {`{"error":"quote: 'symbol' must be a string, got list."}`, true},
		"c_ok":   {fmt.Sprintf(`{"path":%q,"bytes":6,"sha256":%q}`, filepath.Join(r.ws, "src", "data.txt"), hexSum), false},
	}
	for id, w := range wantRead {
		if got[id].Content != w.content || got[id].IsError != w.isError {
			t.Errorf("%s: the model read %q (IsError %v), want %q (IsError %v)", id, got[id].Content, got[id].IsError, w.content, w.isError)
		}
	}
	if !got["c_missing"].IsError {
		t.Errorf("c_missing: the model's tool message is not marked failed: %+v", got["c_missing"])
	}
}

// TestNewToolParallelSafeCallsRunTogether: the calls of one reply to a
// parallel-safe tool run at once (all three are inside the handler
// together), and their results reach the model in call order.
func TestNewToolParallelSafeCallsRunTogether(t *testing.T) {
	t.Parallel()
	g := newGate(3, 10*time.Second) // bounds the wait should the calls run one by one
	m := batches(calls(
		[3]string{"q1", quoteName, `{"symbol":"A"}`},
		[3]string{"q2", quoteName, `{"symbol":"B"}`},
		[3]string{"q3", quoteName, `{"symbol":"C"}`},
	))
	r := start(t, m, setup{catalog: map[string]string{"A": "1", "B": "2", "C": "3"}, quoteGate: g}, nil)
	r.prompt("three quotes")
	if maxIn, runs := g.stats(); maxIn != 3 || runs != 3 {
		t.Errorf("quote runs = %d, at most %d at once; want 3 at once", runs, maxIn)
	}
	var ids []string
	for _, msg := range m.requests()[1].Messages {
		if msg.Role == model.RoleTool {
			ids = append(ids, msg.ToolCallID)
		}
	}
	if !slices.Equal(ids, []string{"q1", "q2", "q3"}) {
		t.Errorf("tool results reached the model in order %v, want q1 q2 q3", ids)
	}
}

// TestNewToolPathScopedPlanning: calls of the path-scoped tool on distinct
// files run together; calls on one file — named relatively and absolutely,
// so only the session's resolution can tell — run one after the other.
func TestNewToolPathScopedPlanning(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "a", "b.txt": "b", "sub/c.txt": "c"}

	t.Run("disjoint paths run together", func(t *testing.T) {
		t.Parallel()
		g := newGate(3, 10*time.Second)
		m := batches(calls(
			[3]string{"c1", checksumName, `{"path":"a.txt"}`},
			[3]string{"c2", checksumName, `{"path":"b.txt"}`},
			[3]string{"c3", checksumName, `{"path":"sub/c.txt"}`},
		))
		r := start(t, m, setup{fileGate: g}, files)
		r.prompt("sums")
		if maxIn, runs := g.stats(); maxIn != 3 || runs != 3 {
			t.Errorf("checksum runs = %d, at most %d at once; want 3 at once", runs, maxIn)
		}
	})

	// Each case names one file three ways. Each run waits up to hold for a
	// second one to join it: if the planner let them overlap, they would
	// meet; run in turn, they never do.
	for _, c := range []struct {
		name  string
		paths func(ws string) [3]string
	}{
		{"one file runs alone", func(ws string) [3]string {
			return [3]string{"a.txt", filepath.Join(ws, "a.txt"), "./sub/../a.txt"}
		}},
		{"one new file runs alone", func(ws string) [3]string {
			return [3]string{"new.txt", filepath.Join(ws, "new.txt"), "sub/../new.txt"}
		}},
		{"a link and its target run alone", func(ws string) [3]string {
			return [3]string{"link.txt", "a.txt", filepath.Join(ws, "link.txt")}
		}},
		{"a folder and a file in it run alone", func(ws string) [3]string {
			return [3]string{"sub", "sub/c.txt", filepath.Join(ws, "sub")}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := newGate(2, 300*time.Millisecond)
			m := &scripted{}
			r := start(t, m, setup{fileGate: g}, files)
			if err := os.Symlink(filepath.Join(r.ws, "a.txt"), filepath.Join(r.ws, "link.txt")); err != nil {
				t.Fatal(err)
			}
			paths := c.paths(r.ws)
			m.reply = func(n int, _ model.Request) *model.Reply {
				if n > 0 {
					return done()
				}
				var cs [][3]string
				for i, p := range paths {
					cs = append(cs, [3]string{fmt.Sprintf("s%d", i+1), checksumName, fmt.Sprintf(`{"path":%q}`, p)})
				}
				return calls(cs...)
			}
			r.prompt("sums of one file")
			if maxIn, runs := g.stats(); maxIn != 1 || runs != 3 {
				t.Errorf("checksum of %v: %d runs, at most %d at once; want 3 one at a time", paths, runs, maxIn)
			}
			want := []string{"start:s1", "end:s1", "start:s2", "end:s2", "start:s3", "end:s3"}
			if got := r.order(); !slices.Equal(got, want) {
				t.Errorf("editor saw %v, want %v", got, want)
			}
		})
	}
}

// TestNewToolFailuresCountInGuardrails: the new tool's failures and its
// idempotent results count in the turn's guardrails like any tool's.
func TestNewToolFailuresCountInGuardrails(t *testing.T) {
	t.Parallel()
	const bad = `{"symbol":"NOPE"}`
	repeat := func(args string, n int) *scripted {
		return &scripted{reply: func(i int, _ model.Request) *model.Reply {
			if i < n {
				return calls([3]string{fmt.Sprintf("r%d", i+1), quoteName, args})
			}
			return done()
		}}
	}

	t.Run("repeated failure warns", func(t *testing.T) {
		t.Parallel()
		m := repeat(bad, 3)
		r := start(t, m, setup{catalog: map[string]string{}}, nil)
		r.prompt("again and again")
		if first := m.toolMessages(1)["r1"].Content; first != `{"error":"unknown symbol \"NOPE\""}` {
			t.Errorf("first failure read as %q, want the bare error", first)
		}
		for i, n := range []int{2, 3} {
			got := m.toolMessages(n)[fmt.Sprintf("r%d", n)]
			prefix := `{"error":"unknown symbol \"NOPE\""}` + "\n\n[Tool loop warning: repeated_exact_failure_warning; count=" + fmt.Sprint(n) + "; quote has failed"
			if !strings.HasPrefix(got.Content, prefix) || !got.IsError {
				t.Errorf("failure %d read as %q (IsError %v), want it to start with %q", i+2, got.Content, got.IsError, prefix)
			}
		}
	})

	t.Run("hard stop blocks the identical call after five failures", func(t *testing.T) {
		t.Parallel()
		g := newGate(0, 0) // counts runs
		m := repeat(bad, 6)
		r := start(t, m, setup{catalog: map[string]string{}, quoteGate: g, guardrails: registry.GuardrailConfig{HardStop: true}}, nil)
		r.prompt("again and again")
		if _, runs := g.stats(); runs != 5 {
			t.Errorf("the failing call ran %d times, want 5 (the 6th blocked)", runs)
		}
		// The block ends the turn: the model is not asked again, and the
		// user reads why in the chat.
		if n := len(m.requests()); n != 6 {
			t.Errorf("the model was asked %d times, want 6 (the turn ends at the block)", n)
		}
		var said strings.Builder
		for _, u := range r.editor.Updates(r.sid) {
			if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
				said.WriteString(c.Content.Text.Text)
			}
		}
		if !strings.Contains(said.String(), "Stopped by the tool loop guardrails: Blocked quote: the same tool call failed 5 times") {
			t.Errorf("the chat says %q, want the guardrail's stop", said.String())
		}
		if tu := r.ended("r6"); tu.Status != acp.StatusFailed || !strings.HasPrefix(text(tu.Content), "❌ Blocked quote: the same tool call failed 5 times") {
			t.Errorf("editor: blocked call ended %q with %q", tu.Status, text(tu.Content))
		}
		if tu := r.ended("r5"); tu.Status != acp.StatusFailed || text(tu.Content) != `❌ unknown symbol "NOPE"` {
			t.Errorf("editor: 5th failure ended %q with %q", tu.Status, text(tu.Content))
		}
	})

	t.Run("idempotent results without progress warn", func(t *testing.T) {
		t.Parallel()
		m := repeat(`{"symbol":"ACME"}`, 2)
		r := start(t, m, setup{catalog: map[string]string{"ACME": "1"}}, nil)
		r.prompt("same quote twice")
		got := m.toolMessages(2)["r2"]
		prefix := `{"symbol":"ACME","price":"1","currency":"USD"}` + "\n\n[Tool loop warning: idempotent_no_progress_warning; count=2; quote returned the same result 2 times."
		if !strings.HasPrefix(got.Content, prefix) || got.IsError {
			t.Errorf("second identical quote read as %q (IsError %v), want it to start with %q", got.Content, got.IsError, prefix)
		}
		if tu := r.ended("r2"); tu.Status != acp.StatusCompleted || text(tu.Content) != "📈 **ACME** 1 USD" {
			t.Errorf("editor: second quote ended %q with %q, want completed and rendered", tu.Status, text(tu.Content))
		}
	})
}
