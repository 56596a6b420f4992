package agent_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
)

// storedRoles is what another process (a restarted agent) finds stored for
// session id in home: the roles of its messages, in order.
func storedRoles(t *testing.T, home, id string) []string {
	t.Helper()
	st := store.New(home, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	defer st.Close()
	_, msgs, err := st.Load(context.Background(), id)
	if err != nil {
		return []string{"load: " + err.Error()}
	}
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = string(m.Role)
		if len(m.ToolCalls) > 0 {
			roles[i] += "+calls"
		}
	}
	return roles
}

// TestDurableSavesBeforeUpdates: a kill -9 loses at most the event in
// flight. The database, read as a restarted agent reads it, holds the
// prompt before the model is asked, the assistant's tool call and the tool's
// result before the next reply's first chunk reaches the editor, and the
// whole turn when the prompt's reply arrives — without a session/list, a
// close or any wait.
func TestDurableSavesBeforeUpdates(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	var sid string
	seen := map[string][]string{}
	check := func(when string) {
		mu.Lock()
		id := sid
		mu.Unlock()
		roles := storedRoles(t, home, id)
		mu.Lock()
		seen[when] = roles
		mu.Unlock()
	}
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		switch n {
		case 0:
			check("model asked")
			return toolReply(model.ToolCall{ID: "call_1", Name: "echo", Arguments: `{"text":"kept"}`}), nil
		default:
			check("second model call")
			emit(model.Delta{Text: "first chunk"})
			check("first chunk sent")
			return &model.Reply{Text: "first chunk", FinishReason: model.Stop}, nil
		}
	}}
	h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
	id := h.newSession(ws)
	mu.Lock()
	sid = id
	mu.Unlock()
	h.prompt(id, "keep this")
	check("prompt replied")

	want := map[string][]string{
		"model asked":       {"user"},
		"second model call": {"user", "assistant+calls"}, // the tool result's update may still be in flight
		"first chunk sent":  {"user", "assistant+calls", "tool"},
		"prompt replied":    {"user", "assistant+calls", "tool", "assistant"},
	}
	for when, w := range want {
		got := seen[when]
		if when == "second model call" {
			// The tool result may already be saved (its tool_call_update
			// went out before), never less than the call.
			if len(got) < 2 || !slices.Equal(got[:2], w) {
				t.Errorf("stored when the %s = %v, want at least %v", when, got, w)
			}
			continue
		}
		if !slices.Equal(got, w) {
			t.Errorf("stored when the %s = %v, want %v", when, got, w)
		}
	}
}
