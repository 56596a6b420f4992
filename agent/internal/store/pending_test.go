package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/model"
)

// TestStorePendingRowAcrossProcesses is a session created in one process
// (session/new: its row alone) and loaded in another: the first writes no
// database, the second finds the session with its mode, directories and
// config options, and the row is then in the database.
func TestStorePendingRowAcrossProcesses(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ctx := context.Background()
	a, notesA := testStore(t, home)
	at := time.UnixMilli(1764590400000)
	rec := Record{ID: "sess_0123abcd", Cwd: "/w", Dirs: []string{"/extra"}, Mode: "plan", Model: "m1",
		Config: map[string]string{"terminal": "docker"}, Plan: []PlanItem{}, Created: at, Updated: at}
	if err := a.Save(ctx, rec, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "sessions.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("sessions.db after saving a new session's row: %v; want it not created yet", err)
	}
	pending := filepath.Join(home, pendingDir, rec.ID+".json")
	if _, err := os.Stat(pending); err != nil {
		t.Fatalf("pending row: %v", err)
	}
	a.Close() // the first process ends (or is killed) before its first prompt

	b, notesB := testStore(t, home)
	got, msgs, err := b.Load(ctx, rec.ID)
	if err != nil {
		t.Fatalf("load in another process: %v", err)
	}
	if diff := cmp.Diff(rec, got); diff != "" || len(msgs) != 0 {
		t.Errorf("loaded record (-saved +loaded):\n%s\n%d messages", diff, len(msgs))
	}
	if _, err := os.Stat(pending); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pending row after the load: %v; want it moved into the database", err)
	}
	// Now in the database: a third process finds it with no pending row.
	c, _ := testStore(t, home)
	if got, err := c.Session(ctx, rec.ID); err != nil || got.Mode != "plan" {
		t.Errorf("session in a third process = %+v, %v", got, err)
	}
	if n := append(notesA.get(), notesB.get()...); len(n) != 0 {
		t.Errorf("notices: %q", n)
	}
}

// TestStorePendingRowImportedOnOpen: the pending rows of sessions never
// prompted move into the database when any process opens it, so the folder
// does not grow; the session then takes its messages as usual.
func TestStorePendingRowImportedOnOpen(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ctx := context.Background()
	a, _ := testStore(t, home)
	at := time.UnixMilli(1764590400000)
	for _, id := range []string{"sess_one", "sess_two"} {
		if err := a.Save(ctx, Record{ID: id, Cwd: "/w", Mode: "default", Created: at, Updated: at}, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := testStore(t, home)
	if err := b.Save(ctx, Record{ID: "sess_three", Cwd: "/w", Mode: "default", Created: at, Updated: at.Add(time.Second)}, false,
		[]model.Message{userMsg("hello")}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(home, pendingDir))
	if err != nil || len(entries) != 0 {
		t.Errorf("pending rows after another process opened the database: %v, %v; want none", entries, err)
	}
	// a's database is not open yet: its next save of a row opens nothing,
	// its first message opens the database, and a's session is found there.
	if _, msgs, err := b.Load(ctx, "sess_one"); err != nil || len(msgs) != 0 {
		t.Errorf("load sess_one = %d messages, %v", len(msgs), err)
	}
	if err := a.Save(ctx, Record{ID: "sess_one", Cwd: "/w", Mode: "default", Created: at, Updated: at.Add(2 * time.Second)}, false,
		[]model.Message{userMsg("first prompt")}); err != nil {
		t.Fatal(err)
	}
	list, _, err := b.List(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"sess_one", "sess_three"}, ids); diff != "" {
		t.Errorf("listed sessions (only those with messages, newest first) (-want +got):\n%s", diff)
	}
}

// TestStorePendingRowNeverOverwritesNewer: a pending row older than the
// session's row in the database (another process prompted it meanwhile)
// is dropped; a session deleted meanwhile stays deleted.
func TestStorePendingRowNeverOverwritesNewer(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ctx := context.Background()
	at := time.UnixMilli(1764590400000)
	old, _ := testStore(t, home)
	if err := old.Save(ctx, Record{ID: "sess_x", Cwd: "/w", Mode: "default", Created: at, Updated: at}, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := old.Save(ctx, Record{ID: "sess_gone", Cwd: "/w", Mode: "default", Created: at, Updated: at}, false, nil); err != nil {
		t.Fatal(err)
	}
	// Another process writes newer rows directly (its database is open),
	// without looking the pending rows up: as a process that opened the
	// database before they were written.
	b, _ := testStore(t, home)
	db, err := b.open()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.saveTx(ctx, db, Record{ID: "sess_x", Cwd: "/w", Title: "newer", Mode: "yolo", Created: at, Updated: at.Add(time.Minute)}, false,
		[]model.Message{userMsg("hi")}); err != nil {
		t.Fatal(err)
	}
	if err := b.saveTx(ctx, db, Record{ID: "sess_gone", Cwd: "/w", Mode: "default", Created: at, Updated: at}, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET deleted = 1 WHERE id = 'sess_gone'`); err != nil {
		t.Fatal(err)
	}
	c, _ := testStore(t, home) // opens the database: imports both pending rows
	got, msgs, err := c.Load(ctx, "sess_x")
	if err != nil || got.Title != "newer" || got.Mode != "yolo" || len(msgs) != 1 {
		t.Errorf("sess_x = %+v, %d messages, %v; want the newer row", got, len(msgs), err)
	}
	if _, _, err := c.Load(ctx, "sess_gone"); !errors.Is(err, ErrNoSession) {
		t.Errorf("deleted session after its pending row was imported: %v; want ErrNoSession", err)
	}
}

// TestStorePendingRowRemoved: deleting a session never prompted deletes
// its pending row, so no process finds it again.
func TestStorePendingRowRemoved(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ctx := context.Background()
	at := time.UnixMilli(1764590400000)
	a, _ := testStore(t, home)
	if err := a.Save(ctx, Record{ID: "sess_del", Cwd: "/w", Mode: "default", Created: at, Updated: at}, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(ctx, "sess_del"); err != nil {
		t.Fatal(err)
	}
	b, _ := testStore(t, home)
	if _, _, err := b.Load(ctx, "sess_del"); !errors.Is(err, ErrNoSession) {
		t.Errorf("load after delete: %v; want ErrNoSession", err)
	}
}

// TestStorePendingRowHostileIDs: an id that is not a plain file name
// (an editor may send any string) never names a file: its row goes to the
// database, and a look-up by it reads nothing outside the folder.
func TestStorePendingRowHostileIDs(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(home), "victim.json")
	if err := os.WriteFile(outside, []byte(`{"id":"../../victim"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	at := time.UnixMilli(1764590400000)
	st, _ := testStore(t, home)
	for _, id := range []string{"../../victim", "../victim", ".hidden", "a/b", ""} {
		if _, _, err := st.Load(ctx, id); !errors.Is(err, ErrNoSession) {
			t.Errorf("load %q: %v; want ErrNoSession", id, err)
		}
	}
	if err := st.Remove(ctx, "../../victim"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("file outside HERMES_HOME after hostile ids: %v", err)
	}
	// A session of such an id (never made by the agent) is still stored.
	st2, _ := testStore(t, t.TempDir())
	rec := Record{ID: "x/../y", Cwd: "/w", Mode: "default", Plan: []PlanItem{}, Created: at, Updated: at}
	if err := st2.Save(ctx, rec, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(st2.path)); err != nil {
		t.Errorf("sessions.db after saving %q: %v; want the row in the database", rec.ID, err)
	}
	if got, _, err := st2.Load(ctx, rec.ID); err != nil || got.ID != rec.ID || got.Cwd != "/w" {
		t.Errorf("load %q = %+v, %v", rec.ID, got, err)
	}
}

// TestStorePendingRowDamagedDatabase: a damaged database is reported when
// a new session's row is saved, as before pending rows, and nothing is
// written.
func TestStorePendingRowDamagedDatabase(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	db := filepath.Join(home, "sessions.db")
	if err := os.WriteFile(db, []byte("not a database at all, but long enough to be read as a header by the check........................\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, n := testStore(t, home)
	at := time.UnixMilli(1764590400000)
	var p *Problem
	if err := st.Save(context.Background(), Record{ID: "sess_a", Cwd: "/w", Created: at, Updated: at}, false, nil); !errors.As(err, &p) {
		t.Fatalf("save on a damaged database: %v; want a Problem", err)
	}
	if got := n.get(); len(got) != 1 {
		t.Errorf("notices = %q; want the damaged database once", got)
	}
	if _, err := os.Stat(filepath.Join(home, pendingDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pending rows on a damaged database: %v; want none written", err)
	}
}
