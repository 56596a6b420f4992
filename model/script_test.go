package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model"
)

// parseScript parses src as a script named "test.yaml".
func parseScript(t *testing.T, src string) *model.Script {
	t.Helper()
	s, err := model.ParseScript("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("ParseScript() error = %v", err)
	}
	return s
}

// conv builds a conversation from alternating roles and texts.
func conv(pairs ...string) []model.Message {
	var msgs []model.Message
	for i := 0; i+1 < len(pairs); i += 2 {
		msgs = append(msgs, model.Message{Role: model.Role(pairs[i]), Content: pairs[i+1]})
	}
	return msgs
}

const twoReplies = `
replies:
  - thought: "The user greets me."
    text: "Hello! I am hermes-acp."
  - text: "Second answer."
`

func TestScriptStreamsRepliesInOrder(t *testing.T) {
	t.Parallel()
	s := parseScript(t, twoReplies)
	reply, deltas, err := run(t.Context(), s, model.Request{Messages: conv("user", "hi")})
	if err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	wantDeltas := []model.Delta{
		{Thought: "The "}, {Thought: "user "}, {Thought: "greets "}, {Thought: "me."},
		{Text: "Hello! "}, {Text: "I "}, {Text: "am "}, {Text: "hermes-acp."},
	}
	if diff := cmp.Diff(wantDeltas, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	want := &model.Reply{Text: "Hello! I am hermes-acp.", Thought: "The user greets me.", FinishReason: model.Stop}
	if diff := cmp.Diff(want, ignoreUsage(reply)); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	if reply.Usage.InputTokens == 0 || reply.Usage.OutputTokens == 0 || reply.Usage.TotalTokens != reply.Usage.InputTokens+reply.Usage.OutputTokens {
		t.Errorf("Usage = %+v, want a non-zero estimate", reply.Usage)
	}

	reply, _, err = run(t.Context(), s, model.Request{Messages: conv("user", "hi", "assistant", "Hello! I am hermes-acp.", "user", "more")})
	if err != nil {
		t.Fatalf("Stream() second reply error = %v", err)
	}
	if reply.Text != "Second answer." {
		t.Errorf("second reply text = %q, want %q", reply.Text, "Second answer.")
	}
}

func TestScriptPositionIsPerConversation(t *testing.T) {
	t.Parallel()
	s := parseScript(t, twoReplies)
	// Conversation A reaches reply 2; conversation B still starts at reply 1.
	if r, _, err := run(t.Context(), s, model.Request{Messages: conv("user", "a", "assistant", "x", "user", "b")}); err != nil || r.Text != "Second answer." {
		t.Fatalf("conversation A = %v, %v; want the second reply", r, err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			r, _, err := run(t.Context(), s, model.Request{Messages: conv("system", "sys", "user", "hi")})
			if err != nil || r.Text != "Hello! I am hermes-acp." {
				t.Errorf("new conversation = %v, %v; want the first reply", r, err)
			}
		})
	}
	wg.Wait()
}

func TestScriptToolCalls(t *testing.T) {
	t.Parallel()
	s := parseScript(t, `
replies:
  - tool_calls:
      - name: write_file
        arguments: {path: notes.txt, content: "hi\n", mode: 420, force: true, tags: [a, b], extra: null}
      - name: echo
        arguments: '{"text": "raw JSON kept"}'
        id: my_id
      - name: list
  - tool_calls:
      - name: echo
        arguments: {text: "x"}
    finish: length
`)
	reply, deltas, err := run(t.Context(), s, model.Request{Messages: conv("user", "go")})
	if err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	if len(deltas) != 0 {
		t.Errorf("deltas = %v, want none", deltas)
	}
	want := &model.Reply{FinishReason: model.ToolCalls, ToolCalls: []model.ToolCall{
		{ID: "call_1", Name: "write_file", Arguments: `{"path":"notes.txt","content":"hi\n","mode":420,"force":true,"tags":["a","b"],"extra":null}`},
		{ID: "my_id", Name: "echo", Arguments: `{"text": "raw JSON kept"}`},
		{ID: "call_3", Name: "list", Arguments: `{}`},
	}}
	if diff := cmp.Diff(want, ignoreUsage(reply)); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	reply, _, err = run(t.Context(), s, model.Request{Messages: conv("user", "go", "assistant", "", "tool", "{}")})
	if err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	if reply.FinishReason != model.Length || reply.ToolCalls[0].ID != "call_4" {
		t.Errorf("reply = %+v, want finish length and id call_4", reply)
	}
}

func TestScriptFinishLength(t *testing.T) {
	t.Parallel()
	s := parseScript(t, "replies:\n  - text: \"Once upon a\"\n    finish: length\n")
	reply, _, err := run(t.Context(), s, model.Request{Messages: conv("user", "tell a story")})
	if err != nil {
		t.Fatalf("Stream() error = %v", err)
	}
	if reply.FinishReason != model.Length {
		t.Errorf("FinishReason = %q, want %q", reply.FinishReason, model.Length)
	}
}

func TestScriptExpect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		expect    string
		msgs      []model.Message
		wantErr   bool
		wantInMsg []string
	}{
		{"role and contains match", `{role: tool, contains: "4"}`, conv("user", "2+2?", "tool", `{"result": 4}`), false, nil},
		{"regexp matches", `{matches: "^fix (the )?bug"}`, conv("user", "fix the bug in main.go"), false, nil},
		{"role only", `{role: user}`, conv("user", "anything"), false, nil},
		{"wrong role", `{role: tool, contains: "4"}`, conv("user", "what is 4?"), true,
			[]string{"test.yaml", "reply 1 (line 2)", `a tool message containing "4"`, `a user message: "what is 4?"`}},
		{"missing text", `{role: user, contains: "deploy"}`, conv("user", strings.Repeat("long text ", 40)), true,
			[]string{`containing "deploy"`, "…"}},
		{"regexp does not match", `{matches: "^yes"}`, conv("user", "no"), true,
			[]string{"matching /^yes/", `"no"`}},
		{"no messages", `{role: user}`, nil, true, []string{"no messages at all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := parseScript(t, "replies:\n  - text: ok\n    expect: "+tc.expect+"\n")
			_, _, err := run(t.Context(), s, model.Request{Messages: tc.msgs})
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("Stream() error = %v, want none", err)
				}
				return
			}
			checkError(t, err, model.ScriptMismatch, tc.wantInMsg...)
		})
	}
}

func TestScriptExhausted(t *testing.T) {
	t.Parallel()
	s := parseScript(t, twoReplies)
	_, _, err := run(t.Context(), s, model.Request{Messages: conv("user", "1", "assistant", "a", "user", "2", "assistant", "b", "user", "3")})
	checkError(t, err, model.ScriptExhausted, "script test.yaml has 2 replies; the conversation asked for reply 3")
}

func TestParseScriptErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		wantInMsg []string
	}{
		{"syntax error", "replies:\n  - text: ok\n  - text: a: b\n", []string{"test.yaml:3:", "mapping values are not allowed"}},
		{"unknown field in a reply", "replies:\n  - text: ok\n  - txt: typo\n", []string{"test.yaml:3:", `unknown field "txt"`}},
		{"unknown top-level field", "replies: []\nreplys: []\n", []string{"test.yaml:2:", `unknown field "replys"`}},
		{"unknown field in a tool call", "replies:\n  - tool_calls:\n      - name: echo\n        args: {}\n", []string{"test.yaml:4:", `unknown field "args"`}},
		{"no replies", "replies: []\n", []string{"test.yaml has no replies"}},
		{"empty file", "", []string{"has no replies"}},
		{"bad finish", "replies:\n  - text: ok\n    finish: done\n", []string{"test.yaml:3:", `finish "done"`}},
		{"bad delay", "replies:\n  - text: ok\n    delay: soon\n", []string{"test.yaml:3:", `delay "soon"`}},
		{"bad regexp", "replies:\n  - text: ok\n    expect: {matches: \"(\"}\n", []string{"test.yaml:3:", "regexp"}},
		{"bad role", "replies:\n  - expect: {role: bot}\n", []string{"test.yaml:2:", `"bot"`}},
		{"tool call without a name", "replies:\n  - text: a\n  - tool_calls:\n      - arguments: {}\n", []string{"test.yaml:4:", "needs a name"}},
		{"text is a list", "replies:\n  - text: [a, b]\n", []string{"test.yaml:2:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := model.ParseScript("test.yaml", []byte(tc.src))
			var e *model.Error
			if !errors.As(err, &e) || e.Kind != model.BadConfig {
				t.Fatalf("ParseScript() error = %v, want *model.Error of kind %q", err, model.BadConfig)
			}
			for _, w := range tc.wantInMsg {
				if !strings.Contains(e.Message, w) {
					t.Errorf("ParseScript() message = %q, want it to contain %q", e.Message, w)
				}
			}
		})
	}
}

func TestScriptDelay(t *testing.T) {
	t.Parallel()
	s := parseScript(t, "replies:\n  - text: late\n    delay: 50ms\n")
	req := model.Request{Messages: conv("user", "hi")}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		reply, _, err := run(t.Context(), s, req)
		if err != nil || reply.Text != "late" {
			t.Fatalf("Stream() = %v, %v; want the reply", reply, err)
		}
		if d := time.Since(start); d != 50*time.Millisecond {
			t.Errorf("reply came after %v, want 50ms", d)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(10 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		_, deltas, err := run(ctx, s, req)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Stream() error = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Errorf("Stream returned after %v, want 10ms (at cancellation)", d)
		}
		if len(deltas) != 0 {
			t.Errorf("deltas = %v, want none after cancellation", deltas)
		}
	})
}

func TestLoadScriptFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(twoReplies), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := model.New(model.Config{Model: "script:" + path})
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	if p.Name() != "script" {
		t.Errorf("Name() = %q, want %q", p.Name(), "script")
	}
	_, err = model.New(model.Config{Model: "script:" + filepath.Join(dir, "missing.yaml")})
	if model.KindOf(err) != model.BadConfig || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("New(missing script) error = %v, want a config error naming the file", err)
	}
}

func TestExamples(t *testing.T) {
	t.Parallel()
	hello, err := model.LoadScript("../examples/hello.yaml")
	if err != nil {
		t.Fatalf("LoadScript(hello.yaml) error = %v", err)
	}
	r, _, err := run(t.Context(), hello, model.Request{Messages: conv("user", "Hello")})
	if err != nil || r.Thought == "" || !strings.HasPrefix(r.Text, "Hello!") {
		t.Errorf("hello.yaml reply = %+v, %v; want a thought and a greeting", r, err)
	}

	// tool.yaml: a text answer, then one tool call, then a final text once
	// the tool's result is in the conversation. The tool result is stood in
	// for by the call's own arguments, which every tool here echoes back.
	tool, err := model.LoadScript("../examples/tool.yaml")
	if err != nil {
		t.Fatalf("LoadScript(tool.yaml) error = %v", err)
	}
	msgs := conv("user", "Hi")
	r, _, err = run(t.Context(), tool, model.Request{Messages: msgs})
	if err != nil || r.Text == "" || len(r.ToolCalls) != 0 {
		t.Fatalf("tool.yaml reply 1 = %+v, %v; want text", r, err)
	}
	msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: r.Text}, model.Message{Role: model.RoleUser, Content: "Use the tool"})
	r, _, err = run(t.Context(), tool, model.Request{Messages: msgs})
	if err != nil {
		t.Fatalf("tool.yaml reply 2 error = %v", err)
	}
	if len(r.ToolCalls) != 1 || r.FinishReason != model.ToolCalls || !json.Valid([]byte(r.ToolCalls[0].Arguments)) {
		t.Fatalf("tool.yaml reply 2 = %+v, want one tool call with JSON arguments", r)
	}
	call := r.ToolCalls[0]
	msgs = append(msgs,
		model.Message{Role: model.RoleAssistant, ToolCalls: r.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: call.Arguments})
	r, _, err = run(t.Context(), tool, model.Request{Messages: msgs})
	if err != nil || r.Text == "" || r.FinishReason != model.Stop {
		t.Errorf("tool.yaml reply 3 = %+v, %v; want the final text", r, err)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := model.New(model.Config{}); !errors.Is(err, model.ErrNoModel) {
		t.Errorf("New(no model) error = %v, want ErrNoModel", err)
	}
	p, err := model.New(model.Config{Model: "gpt-test"})
	if err != nil || p.Name() != "openai-compatible" {
		t.Errorf("New(gpt-test) = %v, %v; want the openai-compatible provider", p, err)
	}
	for _, base := range []string{"localhost:8080/v1", "ftp://example.com/v1", "http://"} {
		_, err := model.New(model.Config{Model: "m", BaseURL: base})
		if model.KindOf(err) != model.BadConfig || !strings.Contains(err.Error(), "--base-url") {
			t.Errorf("New(base %q) error = %v, want a config error naming --base-url", base, err)
		}
	}
}
