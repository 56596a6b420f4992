package model_test

import (
	"bytes"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// assistant returns the history message for reply r.
func assistant(r *model.Reply) model.Message {
	return model.Message{Role: model.RoleAssistant, Content: r.Text, Thought: r.Thought, ToolCalls: r.ToolCalls}
}

func TestRecordThenReplay(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t,
		modeltest.Turn{Reasoning: []string{"I should ", "greet."}, Text: []string{"Hello", " there!"}},
		modeltest.Turn{Text: []string{"Calling tools."}, ToolCalls: []modeltest.ToolCall{
			{ID: "call_a", Name: "write_file", Arguments: `{"path":"notes.txt","content":"line 1\nline 2\n","mode":420,"tags":[],"opts":{}}`},
			{ID: "call_b", Name: "echo", Arguments: `{"text":"true","n":1.5e3}`},
		}},
		modeltest.Turn{Text: []string{"Done: ", "wrote notes.txt"}, Finish: "length"},
	)
	path := filepath.Join(t.TempDir(), "session.yaml")
	live := newProvider(t, s.URL(), func(c *model.Config) { c.RecordPath = path })

	// Drive a three-reply conversation against the live provider.
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "You are hermes."},
		{Role: model.RoleUser, Content: "Say hello to me, please, in a friendly way that is quite long.\nSecond line."},
	}
	var reqs []model.Request
	var want []*model.Reply
	next := func(extra ...model.Message) {
		t.Helper()
		msgs = append(msgs, extra...)
		req := model.Request{Messages: append([]model.Message(nil), msgs...)}
		reply, _, err := run(t.Context(), live, req)
		if err != nil {
			t.Fatalf("live reply %d: %v", len(want)+1, err)
		}
		reqs = append(reqs, req)
		want = append(want, reply)
		msgs = append(msgs, assistant(reply))
	}
	next()
	next(model.Message{Role: model.RoleUser, Content: "Write notes and echo"})
	next(model.Message{Role: model.RoleTool, ToolCallID: "call_a", Content: `{"ok": true}`},
		model.Message{Role: model.RoleTool, ToolCallID: "call_b", Content: `{"echo": "true"}`})

	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "record.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantFile, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(wantFile), string(got)); diff != "" {
		t.Errorf("recorded script (-want +got):\n%s", diff)
	}

	// Replay the recording offline: the same requests give the same replies.
	replay, err := model.New(model.Config{Model: "script:" + path})
	if err != nil {
		t.Fatalf("New(script:recording) error = %v", err)
	}
	for i, req := range reqs {
		var deltas []model.Delta
		reply, err := replay.Stream(t.Context(), req, func(d model.Delta) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("replay of reply %d: %v", i+1, err)
		}
		if diff := cmp.Diff(ignoreUsage(want[i]), ignoreUsage(reply)); diff != "" {
			t.Errorf("replayed reply %d (-live +replay):\n%s", i+1, diff)
		}
		var text strings.Builder
		for _, d := range deltas {
			text.WriteString(d.Text)
		}
		if text.String() != want[i].Text {
			t.Errorf("replayed text deltas of reply %d join to %q, want %q", i+1, text.String(), want[i].Text)
		}
	}
	// A conversation that differs from the recording is caught by expect.
	_, err = replay.Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "something else"}}}, func(model.Delta) {})
	checkError(t, err, model.ScriptMismatch, "Say hello to me")
}

// recordedReplies returns the recorded file's content.
func recordedReplies(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRecordRebuildsHistoryAndStartsOver(t *testing.T) {
	t.Parallel()
	s := modeltest.StartOptions(modeltest.Options{Script: []modeltest.Turn{{Text: []string{"live answer"}}}, Loop: true})
	t.Cleanup(s.Close)
	path := filepath.Join(t.TempDir(), "rec.yaml")
	p := newProvider(t, s.URL(), func(c *model.Config) { c.RecordPath = path })

	// A resumed session: its earlier replies come from the history.
	resumed := []model.Message{
		{Role: model.RoleUser, Content: "first question"},
		{Role: model.RoleAssistant, Content: "old answer", Thought: "old thought"},
		{Role: model.RoleUser, Content: "second question"},
	}
	if _, _, err := run(t.Context(), p, model.Request{Messages: resumed}); err != nil {
		t.Fatal(err)
	}
	want := `# Recorded by hermes-acp --record; replay it with --model script:FILE.
replies:
  - expect:
      role: user
      contains: first question
    thought: old thought
    text: old answer
  - expect:
      role: user
      contains: second question
    text: live answer
`
	if diff := cmp.Diff(want, recordedReplies(t, path)); diff != "" {
		t.Errorf("recording of a resumed session (-want +got):\n%s", diff)
	}

	// A new conversation replaces the recording.
	if _, _, err := run(t.Context(), p, userReq("new chat")); err != nil {
		t.Fatal(err)
	}
	want = `# Recorded by hermes-acp --record; replay it with --model script:FILE.
replies:
  - expect:
      role: user
      contains: new chat
    text: live answer
`
	if diff := cmp.Diff(want, recordedReplies(t, path)); diff != "" {
		t.Errorf("recording after a new conversation (-want +got):\n%s", diff)
	}
}

func TestRecordWriteFailureKeepsTheReply(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"fine"}})
	var logs bytes.Buffer
	path := filepath.Join(t.TempDir(), "missing-dir", "rec.yaml")
	p := newProvider(t, s.URL(), func(c *model.Config) {
		c.RecordPath = path
		c.Log = slog.New(slog.NewTextHandler(&logs, nil))
	})
	reply, _, err := run(t.Context(), p, userReq("hi"))
	if err != nil || reply.Text != "fine" {
		t.Fatalf("Stream() = %v, %v; want the reply despite the recording failure", reply, err)
	}
	if !strings.Contains(logs.String(), "cannot record") || !strings.Contains(logs.String(), "missing-dir") {
		t.Errorf("log = %q, want the recording failure with the path", logs.String())
	}
}

func TestRecordSkipsFailedReplies(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Status: 401})
	path := filepath.Join(t.TempDir(), "rec.yaml")
	p := newProvider(t, s.URL(), func(c *model.Config) { c.RecordPath = path })
	if _, _, err := run(t.Context(), p, userReq("hi")); model.KindOf(err) != model.Auth {
		t.Fatalf("Stream() error = %v, want an auth error", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("recording exists after a failed reply (stat error %v)", err)
	}
}
