package agent_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/acp/acptest"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/internal/schematest"
	"github.com/hermes-acp/hermes-acp/model"
)

func ptr[T any](v T) *T { return &v }

func TestPromptBlocksBecomeTheUserMessage(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "notes.md"), []byte("disk text"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("x", 600<<10)), 0o644))
	must(os.WriteFile(filepath.Join(ws, ".env"), []byte("SECRET=1"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "other.txt"), []byte("outside text"), 0o644))
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{caps: fsCaps})
	sid := h.newSession(ws)
	// An unsaved editor buffer wins over the disk.
	h.editor.SetBuffer(filepath.Join(ws, "notes.md"), "unsaved buffer text")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") // a PNG signature: prompt images are checked
	res, err := h.editor.Prompt(h.ctx(), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
		acp.TextBlock("Look at these"),
		{ResourceLink: &acp.ResourceLink{URI: "file://" + filepath.Join(ws, "notes.md"), Name: "notes.md"}},
		{ResourceLink: &acp.ResourceLink{URI: "file://" + filepath.Join(ws, "big.txt"), Name: "big.txt"}},
		{ResourceLink: &acp.ResourceLink{URI: "file://" + filepath.Join(outside, "other.txt"), Name: "other.txt"}},
		{ResourceLink: &acp.ResourceLink{URI: "file://" + filepath.Join(ws, ".env"), Name: ".env"}},
		{ResourceLink: &acp.ResourceLink{URI: "https://example.com/spec", Name: "spec"}},
		{Resource: &acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///x/embedded.go", Text: ptr("package x")}}},
		{Image: &acp.ImageContent{Data: base64.StdEncoding.EncodeToString(png), MimeType: "image/png"}},
	}})
	if err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt = %v, %v", res, err)
	}
	msg := lastMessage(fm.requests()[0])
	for _, want := range []string{
		"Look at these",
		"[Attached file: notes.md]", "unsaved buffer text",
		"truncated to 512 KiB of 614400 bytes",
		"[Attached file: embedded.go]", "package x",
		"Resource link only: spec",
	} {
		if !strings.Contains(msg.Content, want) {
			t.Errorf("user message lacks %q", want)
		}
	}
	for _, bad := range []string{"disk text", "outside text", "SECRET=1"} {
		if strings.Contains(msg.Content, bad) {
			t.Errorf("user message contains %q", bad)
		}
	}
	if !strings.Contains(msg.Content, "outside the workspace") {
		t.Errorf("no note for the file outside the workspace in %q", msg.Content)
	}
	if len(msg.Images) != 1 || msg.Images[0].MIMEType != "image/png" || string(msg.Images[0].Data) != string(png) {
		t.Errorf("images = %+v", msg.Images)
	}
}

func TestInitializeAndAuthenticate(t *testing.T) {
	t.Parallel()
	check := schematest.Attach(t)
	a := agent.New(agent.Options{Version: "9.9.9", HermesHome: t.TempDir()})
	defer a.Close()
	e := acptest.New(t, a, acptest.Options{Tap: check.Line})
	ctx := t.Context()
	res, err := e.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: 7, ClientCapabilities: acp.ClientCapabilities{Auth: acp.AuthCapabilities{Terminal: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != 1 {
		t.Errorf("protocolVersion = %d, want 1 for a client offering 7", res.ProtocolVersion)
	}
	if res.AgentInfo == nil || res.AgentInfo.Name != "hermes-acp" || res.AgentInfo.Version != "9.9.9" {
		t.Errorf("agentInfo = %+v", res.AgentInfo)
	}
	caps := res.AgentCapabilities
	if !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext ||
		caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Resume == nil || caps.SessionCapabilities.Close == nil || caps.SessionCapabilities.Delete == nil {
		t.Errorf("capabilities = %+v", caps)
	}
	if h, _ := caps.Meta["hermes"].(map[string]any); h["diagnostics"] != true {
		t.Errorf("_meta = %v, want hermes.diagnostics", caps.Meta)
	}
	// auth.terminal: the terminal method, without the legacy _meta.
	if len(res.AuthMethods) != 1 || !res.AuthMethods[0].Terminal || res.AuthMethods[0].ID != agent.SetupMethodID ||
		res.AuthMethods[0].Name != "Set up hermes-acp" || !slices.Equal(res.AuthMethods[0].Args, []string{"--setup"}) || res.AuthMethods[0].Meta != nil {
		t.Errorf("authMethods for auth.terminal = %+v", res.AuthMethods)
	}
	// No model configured: authenticating fails with -32000.
	err = e.Call(ctx, "authenticate", &acp.AuthenticateRequest{MethodID: agent.SetupMethodID}, &acp.Empty{})
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeAuthRequired {
		t.Errorf("authenticate without a model: %v, want -32000", err)
	}
	err = e.Call(ctx, "authenticate", &acp.AuthenticateRequest{MethodID: "nope"}, &acp.Empty{})
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Errorf("authenticate with an unknown method: %v, want -32602", err)
	}
	if res.AgentCapabilities.SessionCapabilities.List == nil {
		t.Errorf("persistence not advertised with a HERMES_HOME: %+v", res.AgentCapabilities)
	}

	// A client without terminal auth (and no HERMES_HOME) is offered the
	// agent method.
	b := agent.New(agent.Options{})
	defer b.Close()
	e2 := acptest.New(t, b, acptest.Options{Tap: check.Line})
	res, err = e2.Init(ctx)
	if err != nil || len(res.AuthMethods) != 1 || res.AuthMethods[0].Terminal || res.AuthMethods[0].ID != agent.ModelMethodID || res.AuthMethods[0].Name == "" {
		t.Errorf("authMethods without terminal auth = %+v, %v", res.AuthMethods, err)
	}
	if res.AgentCapabilities.LoadSession || res.AgentCapabilities.SessionCapabilities.List != nil {
		t.Errorf("persistence advertised without a HERMES_HOME: %+v", res.AgentCapabilities)
	}
}

// TestLegacyTerminalAuthNamesTheCommand: a client that advertises Zed's
// older _meta["terminal-auth"] (and the ACP registry's validator, which
// sends only that) gets the terminal method with _meta["terminal-auth"]
// naming the whole command: this executable, --setup, and HERMES_HOME.
func TestLegacyTerminalAuthNamesTheCommand(t *testing.T) {
	t.Parallel()
	check := schematest.Attach(t)
	setup := agent.SetupCommand{Path: "/opt/hermes/hermes-acp", Env: map[string]string{"HERMES_HOME": "/data/hermes"}}
	a := agent.New(agent.Options{Setup: setup})
	defer a.Close()
	e := acptest.New(t, a, acptest.Options{Tap: check.Line, Capabilities: acp.ClientCapabilities{Meta: acp.Meta{"terminal-auth": true}}})
	res, err := e.Init(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.AuthMethods) != 1 {
		t.Fatalf("authMethods = %+v, want one", res.AuthMethods)
	}
	m := res.AuthMethods[0]
	if !m.Terminal || m.ID != agent.SetupMethodID || !slices.Equal(m.Args, []string{"--setup"}) || m.Env["HERMES_HOME"] != "/data/hermes" {
		t.Errorf("method = %+v, want the terminal method with HERMES_HOME", m)
	}
	got, _ := json.Marshal(m.Meta["terminal-auth"])
	want := `{"args":["--setup"],"command":"/opt/hermes/hermes-acp","env":{"HERMES_HOME":"/data/hermes"},"label":"Set up hermes-acp"}`
	if string(got) != want {
		t.Errorf("_meta[\"terminal-auth\"] = %s, want %s", got, want)
	}
}

// TestAuthenticateGivesThePromptsGuidance: without a model, the agent
// method fails with exactly the guidance the first prompt shows, and
// session/new does not need authenticating.
func TestAuthenticateGivesThePromptsGuidance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, harnessOptions{noModel: true, opts: agent.Options{Model: agent.ModelSetup{Problem: "model.base_url is not a URL"}}})
	sid := h.newSession("") // before any authenticate
	h.prompt(sid, "hi")
	guidance := h.editor.Text(sid)
	if !strings.Contains(guidance, "hermes-acp --setup") || !strings.Contains(guidance, "model.base_url is not a URL") {
		t.Fatalf("first prompt's text = %q", guidance)
	}
	err := h.editor.Call(h.ctx(), "authenticate", &acp.AuthenticateRequest{MethodID: agent.ModelMethodID}, &acp.Empty{})
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeAuthRequired || ae.Message != "Authentication required: "+guidance {
		t.Errorf("authenticate = %v\nwant -32000 with the prompt's guidance:\n%s", err, guidance)
	}
}

func TestAuthenticatePicksUpNewConfiguration(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("configured now", emit), nil
	}}
	configured := false
	h := newHarness(t, nil, harnessOptions{noModel: true, opts: agent.Options{ReloadModel: func() (agent.ModelSetup, error) {
		if configured {
			return agent.ModelSetup{Provider: fm, Name: "m"}, nil
		}
		return agent.ModelSetup{}, nil
	}}})
	configured = true // the user ran `hermes-acp --setup`
	if err := h.editor.Call(h.ctx(), "authenticate", &acp.AuthenticateRequest{MethodID: agent.ModelMethodID}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	sid := h.newSession("")
	h.prompt(sid, "hi")
	if h.editor.Text(sid) != "configured now" {
		t.Errorf("text = %q", h.editor.Text(sid))
	}
}
