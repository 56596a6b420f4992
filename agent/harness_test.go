package agent_test

import (
	"context"
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

// fakeModel is a model.Provider whose replies come from a function of the
// call number and request; it records every request.
type fakeModel struct {
	reply func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error)

	mu   sync.Mutex
	reqs []model.Request
}

func (f *fakeModel) Name() string { return "fake" }

func (f *fakeModel) Stream(ctx context.Context, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.reply(ctx, n, req, emit)
}

func (f *fakeModel) requests() []model.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]model.Request(nil), f.reqs...)
}

// textReply streams text in two pieces and stops.
func textReply(text string, emit func(model.Delta)) *model.Reply {
	half := len(text) / 2
	emit(model.Delta{Text: text[:half]})
	emit(model.Delta{Text: text[half:]})
	return &model.Reply{Text: text, FinishReason: model.Stop}
}

func toolReply(calls ...model.ToolCall) *model.Reply {
	return &model.Reply{ToolCalls: calls, FinishReason: model.ToolCalls}
}

// lastMessage returns the last message of a request.
func lastMessage(req model.Request) model.Message { return req.Messages[len(req.Messages)-1] }

type harness struct {
	t      *testing.T
	agent  *agent.Agent
	editor *acptest.Editor
	model  *fakeModel
	home   string
}

type harnessOptions struct {
	caps    acp.ClientCapabilities
	opts    agent.Options
	reg     *registry.Registry
	perm    func(ctx context.Context, req *acp.RequestPermissionRequest) acp.PermissionOutcome
	noModel bool
	home    string
	noStore bool                           // no session database (HermesHome "")
	stall   func(method string) bool       // editor requests left unanswered
	refuse  func(method string) *acp.Error // editor requests answered with an error
	// elicit answers elicitation/create (caps must advertise forms).
	elicit func(ctx context.Context, req *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error)
	// bound are tools bound to each session's Env: the harness declares
	// them in reg (a new registry when nil) and binds them through
	// Options.BindTools, as the composition root binds the built-in tools.
	bound []envTool
}

// envTool is a test tool that needs its session: entry declares it (its
// Handler is ignored) and handler binds it to one session's Env.
type envTool struct {
	entry   registry.Entry
	handler func(env *agent.Env) registry.Handler
}

// bindEnvTools declares tools in reg and returns the BindTools that binds
// the ones a session enables to that session's Env.
func bindEnvTools(t *testing.T, reg *registry.Registry, tools []envTool) func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
	t.Helper()
	for _, tool := range tools {
		decl := tool.entry
		decl.Handler = nil
		if err := reg.Register(decl); err != nil {
			t.Fatal(err)
		}
	}
	return func(env *agent.Env) ([]registry.Entry, []registry.Hook) {
		var out []registry.Entry
		for _, tool := range tools {
			if !env.Enabled(tool.entry.Name) {
				continue
			}
			e := tool.entry
			e.Handler = tool.handler(env)
			out = append(out, e)
		}
		return out, nil
	}
}

func newHarness(t *testing.T, fm *fakeModel, ho harnessOptions) *harness {
	t.Helper()
	check := schematest.Attach(t)
	o := ho.opts
	if ho.home == "" {
		ho.home = t.TempDir()
	}
	o.HermesHome = ho.home
	if ho.noStore {
		o.HermesHome = ""
	}
	if !ho.noModel {
		o.Model.Provider, o.Model.Name, o.Model.Choices = fm, "fake-model", []string{"other-model"} // other fields from ho.opts
	}
	if len(ho.bound) > 0 {
		if ho.reg == nil {
			ho.reg = registry.New(nil)
		}
		o.BindTools = bindEnvTools(t, ho.reg, ho.bound)
	}
	if ho.reg != nil {
		o.Registry = ho.reg
		o.Pipeline = registry.PipelineOptions{ResultsDir: t.TempDir()}
		if len(o.Toolsets) == 0 {
			o.Toolsets = ho.reg.Snapshot().Toolsets()
		}
	}
	o.Version = "test"
	a := agent.New(o)
	t.Cleanup(func() { a.Close() })
	e := acptest.New(t, a, acptest.Options{Capabilities: ho.caps, Tap: check.Line, Permission: ho.perm, Stall: ho.stall, Refuse: ho.refuse, Elicitation: ho.elicit})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.Init(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return &harness{t: t, agent: a, editor: e, model: fm, home: ho.home}
}

func (h *harness) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	h.t.Cleanup(cancel)
	return ctx
}

func (h *harness) newSession(cwd string) string {
	h.t.Helper()
	if cwd == "" {
		cwd = h.t.TempDir()
	}
	res, err := h.editor.NewSessionAt(h.ctx(), cwd)
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return res.SessionID
}

func (h *harness) prompt(sid, text string) acp.StopReason {
	h.t.Helper()
	stop, err := h.editor.PromptText(h.ctx(), sid, text)
	if err != nil {
		h.t.Fatalf("session/prompt %q: %v", text, err)
	}
	return stop
}

// kinds lists the sessionUpdate kinds received for sid, in order.
func (h *harness) kinds(sid string) []string {
	var out []string
	for _, u := range h.editor.Updates(sid) {
		out = append(out, u.Update.Kind())
	}
	return out
}

// echoRegistry returns a registry with an "echo" tool.
func echoRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New(nil)
	err := reg.Register(registry.Entry{
		Name: "echo", Toolset: "test", Description: "Echo text back.",
		Schema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}},
		Handler: func(ctx context.Context, c *registry.Call) (registry.Result, error) {
			s, _ := c.String("text")
			return registry.OK(map[string]string{"echo": s}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
