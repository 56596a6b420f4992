package agent_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", to write a newer database
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

// TestDurableRefusedDatabaseUntouched: with saves at every update, a
// database written by a newer hermes-acp, or damaged past its header, is
// still reported once and never written: turns with tool calls (a save
// tried before each update) work, the file keeps every byte and gets no
// WAL beside it.
func TestDurableRefusedDatabaseUntouched(t *testing.T) {
	t.Parallel()
	newer := func(t *testing.T) []byte {
		home := t.TempDir()
		st := store.New(home, slog.New(slog.DiscardHandler), nil)
		if err := st.Save(context.Background(), store.Record{ID: "sess_old", Cwd: "/w"}, false, []model.Message{{Role: model.RoleUser, Content: "old"}}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		db, err := sql.Open("sqlite", filepath.Join(home, "sessions.db"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE; PRAGMA user_version = 9`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		data, err := os.ReadFile(filepath.Join(home, "sessions.db"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, tc := range []struct {
		name string
		data func(t *testing.T) []byte
		want string
	}{
		{"newer schema", newer, "written by a newer hermes-acp (schema version 9"},
		{"damaged pages", func(t *testing.T) []byte {
			data := newer(t)
			binary.BigEndian.PutUint32(data[60:64], 3) // the header says this version; the pages are garbage
			for i := 100; i < len(data); i++ {
				data[i] = 0xA5
			}
			return data
		}, "is damaged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			path := filepath.Join(home, "sessions.db")
			data := tc.data(t)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
				if lastMessage(req).Role == model.RoleUser {
					return toolReply(model.ToolCall{ID: fmt.Sprint("call_", n), Name: "echo", Arguments: `{"text":"x"}`}), nil
				}
				return textReply("answered", emit), nil
			}}
			h := newHarness(t, fm, harnessOptions{reg: echoRegistry(t), home: home})
			sid := h.newSession("")
			for _, p := range []string{"one", "two"} {
				if stop := h.prompt(sid, p); stop != acp.StopEndTurn {
					t.Fatalf("prompt %q stopped with %s", p, stop)
				}
			}
			text := h.editor.Text(sid)
			if strings.Count(text, path) != 1 || !strings.Contains(text, tc.want) || strings.Count(text, "answered") != 2 {
				t.Errorf("chat = %q; want one notice naming %s that says %q, and both answers", text, path, tc.want)
			}
			h.agent.Close()
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, data) {
				t.Errorf("sessions.db changed (%d bytes before, %d after, %v)", len(data), len(after), err)
			}
			if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a WAL file appeared beside the refused database: %v", err)
			}
		})
	}
}
