package agent_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// redPNG is a 2×2 red PNG.
func redPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	for x := range 2 {
		for y := range 2 {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func imageBlock(data []byte, mime string) acp.ContentBlock {
	return acp.ContentBlock{Image: &acp.ImageContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}}
}

// agentText joins the agent message chunks sent for sid.
func agentText(h *harness, sid string) string {
	var b strings.Builder
	for _, u := range h.editor.Updates(sid) {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// An image attached to a prompt reaches the model as an image of the user
// message, typed by its bytes (the editor said JPEG; it is a PNG).
func TestPromptImageReachesTheModel(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("A red square.", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{})
	sid := h.newSession("")
	pic := redPNG(t)
	res, err := h.editor.Prompt(h.ctx(), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
		acp.TextBlock("What is in this picture?"), imageBlock(pic, "image/jpeg"),
	}})
	if err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("prompt = %v, %v", res, err)
	}
	msg := lastMessage(fm.requests()[0])
	if msg.Content != "What is in this picture?" || len(msg.Images) != 1 ||
		msg.Images[0].MIMEType != "image/png" || !bytes.Equal(msg.Images[0].Data, pic) {
		t.Errorf("user message = %q with images %+v, want the text and the PNG", msg.Content, msg.Images)
	}
}

// Images the model cannot take are refused in the chat before anything is
// sent; the conversation does not keep the refused prompt. (The size limit
// is checked in vision_internal_test.go: 20 MB through the protocol takes
// too long under -race.)
func TestPromptImageRefusals(t *testing.T) {
	t.Parallel()
	bmp := append([]byte("BM"), make([]byte, 64)...)
	for _, tc := range []struct {
		name     string
		noVision bool
		img      []byte
		want     []string
	}{
		{"bmp", false, bmp, []string{"image 1: the image is not PNG, JPEG, GIF or WebP", "image/bmp", "Nothing was sent to the model"}},
		{"model without vision", true, nil, []string{"cannot see images", "model.vision: false", "nothing was sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				return textReply("ok", emit), nil
			}}
			h := newHarness(t, fm, harnessOptions{opts: agent.Options{Model: agent.ModelSetup{NoVision: tc.noVision}}})
			sid := h.newSession("")
			img := tc.img
			if img == nil {
				img = redPNG(t)
			}
			res, err := h.editor.Prompt(h.ctx(), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
				acp.TextBlock("Look"), imageBlock(img, "image/png"),
			}})
			if err != nil || res.StopReason != acp.StopEndTurn {
				t.Fatalf("prompt = %v, %v", res, err)
			}
			if n := len(fm.requests()); n != 0 {
				t.Fatalf("the model got %d requests, want none", n)
			}
			got := agentText(h, sid)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("refusal %q lacks %q", got, w)
				}
			}
			h.prompt(sid, "hello")
			msgs := fm.requests()[0].Messages
			if len(msgs) != 2 || msgs[1].Content != "hello" {
				t.Errorf("next request = %+v, want the system prompt and \"hello\" only", msgs)
			}
		})
	}
}

// The editor is told images are welcome only when the model can see them.
func TestPromptCapabilitiesImage(t *testing.T) {
	t.Parallel()
	for _, noVision := range []bool{false, true} {
		a := agent.New(agent.Options{Model: agent.ModelSetup{NoVision: noVision}})
		res, err := a.Initialize(t.Context(), &acp.InitializeRequest{ProtocolVersion: 1})
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := res.AgentCapabilities.PromptCapabilities.Image; got == noVision {
			t.Errorf("NoVision %v: promptCapabilities.image = %v", noVision, got)
		}
	}
}

// A loaded session shows the user's image again, with the prompt's text,
// as one user message.
func TestReplayShowsPromptImages(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("A red square.", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{home: home})
	sid := h.newSession(ws)
	pic := redPNG(t)
	if _, err := h.editor.Prompt(h.ctx(), &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{
		acp.TextBlock("What is this?"), imageBlock(pic, "image/png"),
	}}); err != nil {
		t.Fatal(err)
	}
	h.agent.Close()

	h2 := newHarness(t, fm, harnessOptions{home: home})
	if err := h2.editor.Call(h2.ctx(), "session/load", &acp.LoadSessionRequest{SessionID: sid, Cwd: ws, McpServers: []acp.McpServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	ups := h2.editor.Updates(sid)
	if len(ups) < 2 || ups[0].Update.UserMessageChunk == nil || ups[1].Update.UserMessageChunk == nil {
		t.Fatalf("replay = %v, want two user_message_chunks first", h2.kinds(sid))
	}
	text, img := ups[0].Update.UserMessageChunk, ups[1].Update.UserMessageChunk
	if text.Content.Text == nil || text.Content.Text.Text != "What is this?" {
		t.Errorf("first chunk = %+v, want the prompt's text", text.Content)
	}
	if img.Content.Image == nil || img.Content.Image.MimeType != "image/png" || img.Content.Image.Data != base64.StdEncoding.EncodeToString(pic) {
		t.Errorf("second chunk = %+v, want the PNG", img.Content)
	}
	if text.MessageID == nil || img.MessageID == nil || *text.MessageID != *img.MessageID {
		t.Errorf("message ids %v and %v, want one message", text.MessageID, img.MessageID)
	}
}

// visionTool is a test tool that asks Env.Vision about a fixed image.
func visionTool(pic []byte, answer *string) envTool {
	return envTool{
		entry: registry.Entry{Name: "look", Toolset: "test"},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				if !env.CanSee() {
					return registry.Error("cannot see"), nil
				}
				text, err := env.Vision(ctx, pic, "image/png", "What colour?")
				if err != nil {
					return registry.Error(err.Error()), nil
				}
				*answer = text
				return registry.OK(text), nil
			}
		},
	}
}

// Env.Vision sends the image and question in a request of its own to the
// session's model, or to the auxiliary vision model when the session's
// model cannot see.
func TestEnvVision(t *testing.T) {
	t.Parallel()
	pic := redPNG(t)
	for _, aux := range []bool{false, true} {
		var mainReqs, auxReqs []model.Request
		fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
			if len(req.Messages) == 1 { // the vision request
				mainReqs = append(mainReqs, req)
				return textReply("red", emit), nil
			}
			if lastMessage(req).Role == model.RoleUser {
				return toolReply(model.ToolCall{ID: "c1", Name: "look", Arguments: `{}`}), nil
			}
			return textReply("done", emit), nil
		}}
		auxModel := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
			auxReqs = append(auxReqs, req)
			return textReply("crimson", emit), nil
		}}
		opts := agent.Options{}
		if aux {
			opts.Model = agent.ModelSetup{NoVision: true, VisionProvider: auxModel, VisionModel: "vision-model"}
		}
		var answer string
		h := newHarness(t, fm, harnessOptions{opts: opts, bound: []envTool{visionTool(pic, &answer)}})
		sid := h.newSession("")
		h.prompt(sid, "look at it")
		reqs, want, wantModel := mainReqs, "red", "fake-model"
		if aux {
			reqs, want, wantModel = auxReqs, "crimson", "vision-model"
			if len(mainReqs) != 0 {
				t.Errorf("aux: the session's model got %d vision requests", len(mainReqs))
			}
		}
		if answer != want || len(reqs) != 1 {
			t.Fatalf("aux %v: answer %q after %d requests, want %q after 1", aux, answer, len(reqs), want)
		}
		m := reqs[0].Messages[0]
		if reqs[0].Model != wantModel || m.Role != model.RoleUser || !strings.HasSuffix(m.Content, "answer the following question:\n\nWhat colour?") ||
			len(m.Images) != 1 || !bytes.Equal(m.Images[0].Data, pic) || m.Images[0].MIMEType != "image/png" || len(reqs[0].Tools) != 0 {
			t.Errorf("aux %v: vision request = %+v", aux, reqs[0])
		}
	}
}
