package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func saveSession(t *testing.T, st *Store, id, title string, at time.Time, msgs ...model.Message) {
	t.Helper()
	rec := Record{ID: id, Cwd: "/w", Title: title, Mode: "default", Created: at, Updated: at}
	if err := st.Save(context.Background(), rec, false, msgs); err != nil {
		t.Fatal(err)
	}
}

func asst(text string) model.Message { return model.Message{Role: model.RoleAssistant, Content: text} }

func toolMsg(text string) model.Message {
	return model.Message{Role: model.RoleTool, ToolCallID: "c1", Name: "terminal", Content: text}
}

func hitSessions(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.SessionID)
	}
	return out
}

func search(t *testing.T, st *Store, q Query) []Hit {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 10
	}
	hits, err := st.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return hits
}

// TestSearchIndexesVersion2Database: a database written before the index
// existed (schema version 2) is indexed once when opened, and its old
// messages are found.
func TestSearchIndexesVersion2Database(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, "sessions.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO sessions (id, cwd, title, created, updated) VALUES ('old', '/w', 'Parser work', 1, 1);
		INSERT INTO messages (session_id, role, content, created) VALUES ('old', 'user', 'the tokenizer panics on unicode input', 1),
			('old', 'assistant', 'fixed the tokenizer', 1);
		PRAGMA user_version = 2;`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, n := testStore(t, home)
	hits := search(t, st, Query{Text: "tokenizer unicode"})
	if len(hits) != 1 || hits[0].SessionID != "old" || hits[0].Role != "user" || hits[0].Snippet != "the >>>tokenizer<<< panics on >>>unicode<<< input" {
		t.Fatalf("hits in a migrated database = %+v", hits)
	}
	if v := userVersion(t, path); v != schemaVersion {
		t.Errorf("user_version = %d, want %d", v, schemaVersion)
	}
	if got := n.get(); len(got) != 0 {
		t.Errorf("notices: %q", got)
	}
	// Messages saved after the migration are indexed too.
	saveSession(t, st, "old", "Parser work", t0, userMsg("and the lexer too"))
	if hits := search(t, st, Query{Text: "lexer"}); len(hits) != 1 {
		t.Errorf("new message after migration: %+v", hits)
	}
}

// TestSearchKeptCurrent: saves, another process's saves, a reset and a
// delete are all reflected by the next search.
func TestSearchKeptCurrent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a, _ := testStore(t, home)
	b, _ := testStore(t, home)
	ctx := context.Background()
	saveSession(t, a, "s1", "one", t0, userMsg("deploy the frobnicator to staging"))
	if hits := search(t, b, Query{Text: "frobnicator"}); len(hits) != 1 || hits[0].SessionID != "s1" {
		t.Fatalf("other process's message: %+v", hits)
	}
	rec := Record{ID: "s1", Cwd: "/w", Title: "one", Mode: "default", Created: t0, Updated: t0}
	if err := a.Save(ctx, rec, true, []model.Message{userMsg("something else entirely")}); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, b, Query{Text: "frobnicator"}); len(hits) != 0 {
		t.Errorf("found after /reset: %+v", hits)
	}
	if hits := search(t, b, Query{Text: "entirely"}); len(hits) != 1 {
		t.Errorf("not found after /reset: %+v", hits)
	}
	if err := b.Remove(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, a, Query{Text: "entirely"}); len(hits) != 0 {
		t.Errorf("found after delete: %+v", hits)
	}
}

// TestSearchRankSortRolesLimit: relevance ranks the session that is most
// about the terms first, sort orders by time, one hit per session, the
// role filter picks the roles searched (user and assistant by default) and
// limit and exclude bound the sessions.
func TestSearchRankSortRolesLimit(t *testing.T) {
	t.Parallel()
	st, _ := testStore(t, t.TempDir())
	saveSession(t, st, "weak", "w", t0, userMsg("we talked about many things today: lunch, weather, the build, and a bit of kubernetes"))
	saveSession(t, st, "strong", "s", t0.Add(time.Hour), userMsg("kubernetes kubernetes"), asst("the kubernetes pod restarts"))
	saveSession(t, st, "newest", "n", t0.Add(2*time.Hour), asst("kubernetes again, with lunch and weather and other words around it"))
	saveSession(t, st, "tools", "t", t0.Add(3*time.Hour), toolMsg("kubernetes: error from server"))

	if got := hitSessions(search(t, st, Query{Text: "kubernetes"})); fmt.Sprint(got) != "[strong newest weak]" && fmt.Sprint(got) != "[strong weak newest]" {
		t.Errorf("relevance order = %v, want strong first and no tool output", got)
	}
	if got := hitSessions(search(t, st, Query{Text: "kubernetes", Sort: "newest"})); fmt.Sprint(got) != "[newest strong weak]" {
		t.Errorf("newest = %v", got)
	}
	if got := hitSessions(search(t, st, Query{Text: "kubernetes", Sort: "oldest"})); fmt.Sprint(got) != "[weak strong newest]" {
		t.Errorf("oldest = %v", got)
	}
	if got := hitSessions(search(t, st, Query{Text: "kubernetes", Roles: []string{"tool"}})); fmt.Sprint(got) != "[tools]" {
		t.Errorf("tool only = %v", got)
	}
	if got := hitSessions(search(t, st, Query{Text: "kubernetes", Roles: []string{"assistant"}, Sort: "oldest"})); fmt.Sprint(got) != "[strong newest]" {
		t.Errorf("assistant only = %v", got)
	}
	if got := search(t, st, Query{Text: "kubernetes", Sort: "oldest", Limit: 2}); len(got) != 2 {
		t.Errorf("limit 2 = %v", hitSessions(got))
	}
	if got := hitSessions(search(t, st, Query{Text: "kubernetes", Sort: "oldest", Exclude: "weak"})); fmt.Sprint(got) != "[strong newest]" {
		t.Errorf("excluding weak = %v", got)
	}
	// Text that is not FTS5 syntax is searched as words.
	saveSession(t, st, "path", "p", t0, userMsg("edit agent/turn.go: line 12 (the loop)"))
	if got := hitSessions(search(t, st, Query{Text: "turn.go: (the"})); fmt.Sprint(got) != "[path]" {
		t.Errorf("punctuated query = %v", got)
	}
	// FTS5 syntax works: a phrase, OR, prefix.
	if got := hitSessions(search(t, st, Query{Text: `"pod restarts" OR lunc*`, Sort: "oldest"})); fmt.Sprint(got) != "[weak strong newest]" {
		t.Errorf("FTS5 syntax = %v", got)
	}
}

// TestSearchAroundWindow: scrolling returns the anchor with up to window
// messages each side, counts at the ends, and refuses an anchor of another
// session.
func TestSearchAroundWindow(t *testing.T) {
	t.Parallel()
	st, _ := testStore(t, t.TempDir())
	var msgs []model.Message
	for i := range 10 {
		msgs = append(msgs, userMsg(fmt.Sprintf("message number%d", i)))
	}
	saveSession(t, st, "long", "l", t0, msgs...)
	saveSession(t, st, "other", "o", t0, userMsg("elsewhere"))
	ctx := context.Background()
	hits := search(t, st, Query{Text: "number4"})
	if len(hits) != 1 {
		t.Fatalf("hits = %+v", hits)
	}
	anchor := hits[0].MessageID
	w, err := st.Around(ctx, "long", anchor, 2)
	if err != nil {
		t.Fatal(err)
	}
	if w.Before != 2 || w.After != 2 || len(w.Messages) != 5 || w.Messages[0].Content != "message number2" || w.Messages[4].Content != "message number6" {
		t.Errorf("window 2 around number4 = %+v", w)
	}
	// Scrolling forward from the last message of the window.
	w, err = st.Around(ctx, "long", w.Messages[4].ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	if w.Before != 5 || w.After != 3 || w.Messages[len(w.Messages)-1].Content != "message number9" {
		t.Errorf("window at the end = before %d after %d, last %q", w.Before, w.After, w.Messages[len(w.Messages)-1].Content)
	}
	if _, err := st.Around(ctx, "other", anchor, 2); err != ErrNoMessage {
		t.Errorf("anchor of another session: %v", err)
	}
	start, end, err := st.Bookends(ctx, "long", 3)
	if err != nil || len(start) != 3 || start[0].Content != "message number0" || len(end) != 3 || end[2].Content != "message number9" {
		t.Errorf("bookends = %+v %+v %v", start, end, err)
	}
}

// TestSearchRecent: recent sessions, newest first, with message counts and
// a preview of the first user message, leaving out the asking session.
func TestSearchRecent(t *testing.T) {
	t.Parallel()
	st, _ := testStore(t, t.TempDir())
	saveSession(t, st, "a", "First", t0, userMsg("hello there"), asst("hi"))
	saveSession(t, st, "b", "Second", t0.Add(time.Minute), userMsg("a long first message that goes on and on well past sixty characters of text"))
	saveSession(t, st, "me", "Me", t0.Add(2*time.Minute), userMsg("current"))
	got, err := st.Recent(context.Background(), 5, "me")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "a" || got[1].Messages != 2 || got[1].Preview != "hello there" ||
		got[0].Preview != "a long first message that goes on and on well past sixty cha..." {
		t.Errorf("recent = %+v", got)
	}
}
