package agent_test

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
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
	if len(res.AuthMethods) != 1 || !res.AuthMethods[0].Terminal || res.AuthMethods[0].ID != "hermes-setup" || res.AuthMethods[0].Args[0] != "--setup" {
		t.Errorf("authMethods = %+v", res.AuthMethods)
	}
	// No model configured: authenticating with the setup method fails with -32000.
	err = e.Call(ctx, "authenticate", &acp.AuthenticateRequest{MethodID: "hermes-setup"}, &acp.Empty{})
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeAuthRequired {
		t.Errorf("authenticate without a model: %v, want -32000", err)
	}
	err = e.Call(ctx, "authenticate", &acp.AuthenticateRequest{MethodID: "nope"}, &acp.Empty{})
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Errorf("authenticate with an unknown method: %v, want -32602", err)
	}

	// A client without terminal auth is offered none.
	b := agent.New(agent.Options{})
	defer b.Close()
	e2 := acptest.New(t, b, acptest.Options{Tap: check.Line})
	res, err = e2.Init(ctx)
	if err != nil || len(res.AuthMethods) != 0 {
		t.Errorf("authMethods without terminal auth = %+v, %v", res.AuthMethods, err)
	}
	if res.AgentCapabilities.LoadSession || res.AgentCapabilities.SessionCapabilities.List != nil {
		t.Errorf("persistence advertised without a HERMES_HOME: %+v", res.AgentCapabilities)
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
	if err := h.editor.Call(h.ctx(), "authenticate", &acp.AuthenticateRequest{MethodID: "hermes-setup"}, &acp.Empty{}); err != nil {
		t.Fatal(err)
	}
	sid := h.newSession("")
	h.prompt(sid, "hi")
	if h.editor.Text(sid) != "configured now" {
		t.Errorf("text = %q", h.editor.Text(sid))
	}
}
