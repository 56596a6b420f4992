package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/model"
)

// notes collects the notices a store reports.
type notes struct {
	mu   sync.Mutex
	list []string
}

func (n *notes) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, s)
}

func (n *notes) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

func testStore(t *testing.T, home string) (*Store, *notes) {
	t.Helper()
	n := &notes{}
	st := New(home, slog.New(slog.DiscardHandler), n.add)
	t.Cleanup(func() { st.Close() })
	return st, n
}

func userMsg(text string) model.Message {
	return model.Message{Role: model.RoleUser, Content: text}
}

// TestStoreTwoProcessesAppend is two hermes-acp processes on one session:
// two stores, each with its own *sql.DB on one file, loading the session and
// appending turns in turn. Every message of both is kept, in save order.
func TestStoreTwoProcessesAppend(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ctx := context.Background()
	a, _ := testStore(t, home)
	b, _ := testStore(t, home)
	at := time.UnixMilli(1764590400000)
	rec := Record{ID: "sess_shared", Cwd: "/w", Mode: "default", Created: at, Updated: at}
	if err := a.Save(ctx, rec, false, []model.Message{userMsg("a0"), {Role: model.RoleAssistant, Content: "r0"}}); err != nil {
		t.Fatal(err)
	}
	// Both windows open the session now: each sees the same two messages.
	for _, st := range []*Store{a, b} {
		if _, msgs, err := st.Load(ctx, rec.ID); err != nil || len(msgs) != 2 {
			t.Fatalf("load = %d messages, %v", len(msgs), err)
		}
	}
	var want []string
	want = append(want, "a0", "r0")
	for i := range 5 {
		for _, p := range []struct {
			name string
			st   *Store
		}{{"a", a}, {"b", b}} {
			turn := []model.Message{
				userMsg(fmt.Sprintf("%s%d", p.name, i+1)),
				{Role: model.RoleAssistant, Content: "", ToolCalls: []model.ToolCall{{ID: fmt.Sprintf("call_%s%d", p.name, i), Name: "echo", Arguments: "{}"}}},
				{Role: model.RoleTool, ToolCallID: fmt.Sprintf("call_%s%d", p.name, i), Name: "echo", Content: fmt.Sprintf("out %s%d", p.name, i+1)},
			}
			rec.Updated = rec.Updated.Add(time.Second)
			if err := p.st.Save(ctx, rec, false, turn); err != nil {
				t.Fatal(err)
			}
			want = append(want, turn[0].Content, "", turn[2].Content)
		}
	}
	third, _ := testStore(t, home)
	_, msgs, err := third.Load(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history after interleaved saves (-want +got):\n%s", diff)
	}
	if tc := msgs[3].ToolCalls; len(tc) != 1 || tc[0].ID != "call_a0" {
		t.Errorf("tool call of the first turn = %+v", tc)
	}
}

// TestStoreConcurrentSavers saves from two stores at the same time; no
// message is lost and each save's messages stay together.
func TestStoreConcurrentSavers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ctx := context.Background()
	stores := []*Store{}
	for range 2 {
		st, _ := testStore(t, home)
		stores = append(stores, st)
	}
	at := time.UnixMilli(1764590400000)
	var wg sync.WaitGroup
	for p, st := range stores {
		wg.Go(func() {
			for i := range 20 {
				rec := Record{ID: "sess_busy", Cwd: "/w", Created: at, Updated: at}
				turn := []model.Message{userMsg(fmt.Sprintf("p%d-%d-q", p, i)), {Role: model.RoleAssistant, Content: fmt.Sprintf("p%d-%d-a", p, i)}}
				if err := st.Save(ctx, rec, false, turn); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	_, msgs, err := stores[0].Load(ctx, "sess_busy")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 80 {
		t.Fatalf("stored %d messages, want 80", len(msgs))
	}
	next := map[string]int{}
	for i := 0; i < len(msgs); i += 2 {
		q, a := msgs[i].Content, msgs[i+1].Content
		var p, n int
		if _, err := fmt.Sscanf(q, "p%d-%d-q", &p, &n); err != nil || a != strings.TrimSuffix(q, "q")+"a" {
			t.Fatalf("messages %d,%d = %q,%q: a save's messages were split", i, i+1, q, a)
		}
		if key := fmt.Sprint(p); n != next[key] {
			t.Fatalf("process %d's turn %d stored before turn %d", p, n, next[key])
		}
		next[fmt.Sprint(p)]++
	}
}

// TestStoreMigratesVersion1 opens a database written by the version 1 code
// (testdata/sessions-v1.db): sessions, history and metadata survive, and the
// migrated database takes appends from new code.
func TestStoreMigratesVersion1(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	data, err := os.ReadFile("testdata/sessions-v1.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "sessions.db"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, n := testStore(t, home)
	ctx := context.Background()
	recs, _, err := st.List(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "sess_old2" || recs[1].ID != "sess_old1" {
		t.Fatalf("list after migration = %+v", recs)
	}
	rec, msgs, err := st.Load(ctx, "sess_old1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Title != "Fix the parser" || rec.Mode != "accept_edits" || len(rec.Dirs) != 1 || len(rec.Plan) != 1 {
		t.Errorf("record = %+v", rec)
	}
	want := []model.Message{
		{Role: model.RoleUser, Content: "Fix the parser\nit fails on empty input"},
		{Role: model.RoleAssistant, Thought: "look first", Content: "Reading it.", ToolCalls: []model.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"parser.go"}`}}},
		{Role: model.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: `{"content":"package parser"}`},
		{Role: model.RoleAssistant, Content: "Fixed."},
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("migrated history (-want +got):\n%s", diff)
	}
	_, msgs2, err := st.Load(ctx, "sess_old2")
	if err != nil || len(msgs2) != 2 || len(msgs2[0].Images) != 1 || !bytes.Equal(msgs2[0].Images[0].Data, []byte{1, 2, 3}) {
		t.Errorf("second session = %+v, %v", msgs2, err)
	}
	rec.Updated = rec.Updated.Add(time.Minute)
	if err := st.Save(ctx, rec, false, []model.Message{userMsg("after the upgrade")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	again, _ := testStore(t, home)
	if _, msgs, err := again.Load(ctx, "sess_old1"); err != nil || len(msgs) != 5 || msgs[4].Content != "after the upgrade" {
		t.Errorf("after reopening: %d messages, %v", len(msgs), err)
	}
	if v := userVersion(t, filepath.Join(home, "sessions.db")); v != schemaVersion {
		t.Errorf("user_version = %d, want %d", v, schemaVersion)
	}
	if got := n.get(); len(got) != 0 {
		t.Errorf("notices for a good database: %q", got)
	}
}

func userVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStoreRefusesBadDatabase: a damaged database, and one written by a
// newer hermes-acp, turn persistence off with one notice, and the file is
// byte for byte what it was after saves, loads, lists and deletes.
func TestStoreRefusesBadDatabase(t *testing.T) {
	t.Parallel()
	newer := newerDatabase(t)
	truncated, err := os.ReadFile("testdata/sessions-v1.db")
	if err != nil {
		t.Fatal(err)
	}
	// A valid header whose pages are garbage: the header check passes, SQLite
	// finds the damage.
	damagedPages := append([]byte(nil), truncated[:100]...)
	damagedPages = append(damagedPages, bytes.Repeat([]byte{0xA5}, len(truncated)-100)...)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not sqlite", []byte("this is not a database, but somebody's notes\n"), "is damaged"},
		{"short", []byte("SQLite format 3\x00"), "is damaged"},
		{"garbage pages", damagedPages, "is damaged"},
		{"newer schema", newer, "written by a newer hermes-acp (schema version 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			path := filepath.Join(home, "sessions.db")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			st, n := testStore(t, home)
			ctx := context.Background()
			at := time.UnixMilli(1764590400000)
			rec := Record{ID: "sess_x", Cwd: "/w", Created: at, Updated: at}
			err := st.Save(ctx, rec, false, []model.Message{userMsg("hello")})
			var p *Problem
			if !errors.As(err, &p) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("save = %v, want a problem naming %s that says %q", err, path, tc.want)
			}
			_, _, lerr := st.Load(ctx, "sess_x")
			_, _, listErr := st.List(ctx, "", "")
			rerr := st.Remove(ctx, "sess_x")
			for _, e := range []error{lerr, listErr, rerr} {
				if !errors.As(e, &p) {
					t.Errorf("operation on a refused database = %v, want the problem", e)
				}
			}
			st.Close()
			if got := n.get(); len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Errorf("notices = %q, want one that says %q", got, tc.want)
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, tc.data) {
				t.Errorf("the database file changed (%d bytes before, %d after, %v)", len(tc.data), len(after), err)
			}
		})
	}
}

// newerDatabase returns the bytes of a valid database of schema version 7.
func newerDatabase(t *testing.T) []byte {
	t.Helper()
	home := t.TempDir()
	st, _ := testStore(t, home)
	if _, err := st.open(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`PRAGMA user_version = 7`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	data, err := os.ReadFile(filepath.Join(home, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	if v := int32(binary.BigEndian.Uint32(data[60:64])); v != 7 {
		t.Fatalf("header user_version = %d after close", v)
	}
	return data
}

// benchTurn is one prompt turn's messages: the prompt, a tool call, its
// result and the answer.
func benchTurn(i int) []model.Message {
	id := fmt.Sprintf("call_%d", i)
	return []model.Message{
		userMsg(fmt.Sprintf("prompt %d: %s", i, strings.Repeat("please look at this ", 10))),
		{Role: model.RoleAssistant, Thought: "I should read it.", ToolCalls: []model.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		{Role: model.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat("line of code\n", 150)},
		{Role: model.RoleAssistant, Content: strings.Repeat("Here is what I found. ", 20)},
	}
}

// BenchmarkStoreSaveTurn measures saving one turn (4 messages, ~2.5 KB) to
// a session that already holds 100 turns in one transaction.
func BenchmarkStoreSaveTurn(b *testing.B) {
	st := New(b.TempDir(), slog.New(slog.DiscardHandler), nil)
	defer st.Close()
	ctx := context.Background()
	rec := Record{ID: "sess_bench", Cwd: "/w", Created: time.Now(), Updated: time.Now()}
	for i := range 100 {
		if err := st.Save(ctx, rec, false, benchTurn(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if err := st.Save(ctx, rec, false, benchTurn(100+i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreSaveTurnDurable measures saving one turn as the agent does
// since saves are durable (#13): a transaction for each message, as each
// is saved before the update that follows it, plus the session row at the
// end of the turn (5 transactions) — the prompt-turn overhead of a kill -9
// losing nothing.
func BenchmarkStoreSaveTurnDurable(b *testing.B) {
	st := New(b.TempDir(), slog.New(slog.DiscardHandler), nil)
	defer st.Close()
	ctx := context.Background()
	rec := Record{ID: "sess_bench", Cwd: "/w", Created: time.Now(), Updated: time.Now()}
	for i := range 100 {
		if err := st.Save(ctx, rec, false, benchTurn(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		for _, m := range benchTurn(100 + i) {
			if err := st.Save(ctx, rec, false, []model.Message{m}); err != nil {
				b.Fatal(err)
			}
		}
		rec.Title = fmt.Sprint("turn ", i)
		if err := st.Save(ctx, rec, false, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreLoad measures loading a session of 100 turns (400
// messages), as session/load and session/resume do.
func BenchmarkStoreLoad(b *testing.B) {
	st := New(b.TempDir(), slog.New(slog.DiscardHandler), nil)
	defer st.Close()
	ctx := context.Background()
	rec := Record{ID: "sess_bench", Cwd: "/w", Created: time.Now(), Updated: time.Now()}
	for i := range 100 {
		if err := st.Save(ctx, rec, false, benchTurn(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, msgs, err := st.Load(ctx, rec.ID); err != nil || len(msgs) != 400 {
			b.Fatalf("load: %d messages, %v", len(msgs), err)
		}
	}
}

// BenchmarkStoreCheck measures the header check at the first prompt.
func BenchmarkStoreCheck(b *testing.B) {
	home := b.TempDir()
	st := New(home, slog.New(slog.DiscardHandler), nil)
	if err := st.Save(context.Background(), Record{ID: "s", Cwd: "/w", Created: time.Now(), Updated: time.Now()}, false, benchTurn(0)); err != nil {
		b.Fatal(err)
	}
	st.Close()
	b.ResetTimer()
	for range b.N {
		fresh := New(home, slog.New(slog.DiscardHandler), nil)
		if err := fresh.checkHeader(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStoreConcurrentMigration: two processes opening a version 1 database
// at once migrate it once; no message is lost or doubled.
func TestStoreConcurrentMigration(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	data, err := os.ReadFile("testdata/sessions-v1.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "sessions.db"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := testStore(t, home)
	b, _ := testStore(t, home)
	var wg sync.WaitGroup
	for _, st := range []*Store{a, b} {
		wg.Go(func() {
			if _, err := st.open(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, st := range []*Store{a, b} {
		if _, msgs, err := st.Load(context.Background(), "sess_old1"); err != nil || len(msgs) != 4 {
			t.Errorf("after concurrent migration: %d messages, %v; want 4", len(msgs), err)
		}
	}
}

// TestStoreUnopenable: a folder where the database should be is reported
// as a database that cannot be opened, once, and left alone.
func TestStoreUnopenable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "sessions.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	st, n := testStore(t, home)
	at := time.UnixMilli(1764590400000)
	for range 2 {
		err := st.Save(context.Background(), Record{ID: "s", Cwd: "/w", Created: at, Updated: at}, false, []model.Message{userMsg("hi")})
		if err == nil || !strings.Contains(err.Error(), "cannot be opened") {
			t.Errorf("save = %v, want it to say the database cannot be opened", err)
		}
	}
	if got := n.get(); len(got) != 1 || !strings.Contains(got[0], "sessions.db cannot be opened") {
		t.Errorf("notices = %q, want one", got)
	}
	if fi, err := os.Stat(filepath.Join(home, "sessions.db")); err != nil || !fi.IsDir() {
		t.Errorf("the folder changed: %v, %v", fi, err)
	}
}

// TestStoreNoticeMayUseTheStore: the notice that persistence is off is sent
// with no lock of the store held, so whatever shows it may call the store
// again (here: the header check and a list, from inside the notice) without
// deadlocking; the header check fails in Check, garbage pages in the open.
func TestStoreNoticeMayUseTheStore(t *testing.T) {
	t.Parallel()
	v1, err := os.ReadFile("testdata/sessions-v1.db")
	if err != nil {
		t.Fatal(err)
	}
	garbage := append(append([]byte(nil), v1[:100]...), bytes.Repeat([]byte{0xA5}, len(v1)-100)...)
	for name, data := range map[string][]byte{"not sqlite": []byte("notes, not a database\n"), "garbage pages": garbage} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "sessions.db"), data, 0o600); err != nil {
				t.Fatal(err)
			}
			var st *Store
			var inside []error
			st = New(home, slog.New(slog.DiscardHandler), func(string) {
				st.Check()
				_, _, err := st.List(context.Background(), "", "")
				inside = append(inside, err)
			})
			defer st.Close()
			_, _, err := st.List(context.Background(), "", "")
			var p *Problem
			if !errors.As(err, &p) {
				t.Fatalf("list = %v, want the problem", err)
			}
			if len(inside) != 1 || !errors.As(inside[0], &p) {
				t.Errorf("the store called from the notice returned %v, want the problem once", inside)
			}
		})
	}
}
