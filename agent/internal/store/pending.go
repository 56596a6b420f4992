package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
)

// A session is stored from session/new on, but most sessions of a process
// are created before anything else needs the database, and opening SQLite
// (running its parser, B-tree and pager code for the first time) costs
// about 3 MiB of resident memory and a few milliseconds. So a save of a
// session's row alone (no messages, no reset) while the database is not
// open yet is a small JSON file, $HERMES_HOME/sessions.pending/<id>.json,
// written atomically: the session survives the process being killed, as a
// WAL commit does. The row moves into the database the next time any
// process opens it (all pending rows) or looks the session up (its row):
// [Store.Load], [Store.Session] and [Store.Save] import it first and
// [Store.Remove] deletes it. A session with no message is never listed or
// searched, so [Store.List], [Store.Recent] and [Store.Search] need no
// pending row. An imported row never overwrites a newer one in the
// database (a later turn of another process).

// pendingDir is the folder of the pending rows, beside the database.
const pendingDir = "sessions.pending"

// pendingRow is a pending session row on disk.
type pendingRow struct {
	ID      string            `json:"id"`
	Cwd     string            `json:"cwd"`
	Dirs    []string          `json:"dirs"`
	Title   string            `json:"title"`
	Mode    string            `json:"mode"`
	Model   string            `json:"model"`
	Plan    []PlanItem        `json:"plan"`
	Config  map[string]string `json:"config,omitempty"`
	Created int64             `json:"created"`
	Updated int64             `json:"updated"`
}

func (st *Store) pendingPath(id string) string {
	return filepath.Join(filepath.Dir(st.path), pendingDir, id+".json")
}

// pendingName reports whether id can name a pending row's file: the ids
// the agent makes (sess_ and hex digits) can; an id an editor sends that
// could leave the folder or hide a file cannot, and so has none.
func pendingName(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// savePending writes rec as a pending row. ok is false when it cannot
// (the id is not a file name): then the caller saves to the database.
func (st *Store) savePending(rec Record) (ok bool, err error) {
	if !pendingName(rec.ID) {
		return false, nil
	}
	st.Check() // a damaged or newer database turns persistence off before anything is written
	if _, err := st.state(); err != nil {
		return true, err
	}
	row := pendingRow{ID: rec.ID, Cwd: rec.Cwd, Dirs: nonNil(rec.Dirs), Title: rec.Title, Mode: rec.Mode, Model: rec.Model,
		Plan: rec.Plan, Config: rec.Config, Created: rec.Created.UnixMilli(), Updated: rec.Updated.UnixMilli()}
	data, err := json.Marshal(row)
	if err != nil {
		return true, fmt.Errorf("save session %s: %w", rec.ID, err)
	}
	dir := filepath.Join(filepath.Dir(st.path), pendingDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true, fmt.Errorf("save session %s: %w", rec.ID, err)
	}
	if err := atomicfile.Write(st.pendingPath(rec.ID), data, 0o600); err != nil {
		return true, fmt.Errorf("save session %s: %w", rec.ID, err)
	}
	return true, nil
}

// importPending moves the pending row of id, if there is one, into the
// database and deletes its file.
func (st *Store) importPending(ctx context.Context, db *sql.DB, id string) error {
	if !pendingName(id) {
		return nil
	}
	return st.importFile(ctx, db, st.pendingPath(id))
}

// importAllPending moves every pending row into the database (when it is
// opened); one that cannot be read is left where it is, and logged.
func (st *Store) importAllPending(ctx context.Context, db *sql.DB) {
	dir := filepath.Join(filepath.Dir(st.path), pendingDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // none yet (or unreadable: each is looked up again by id)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || !pendingName(strings.TrimSuffix(name, ".json")) {
			continue // temporary files of a write under way, or not ours
		}
		if err := st.importFile(ctx, db, filepath.Join(dir, name)); err != nil {
			st.log.Warn("pending session row not imported", "file", filepath.Join(dir, name), "error", err)
		}
	}
}

// importFile imports one pending row file. The row is written only if the
// database has none for the session or an older one (updated); a session
// deleted meanwhile stays deleted. The file is deleted once the row is
// committed; a file that is not a row is left untouched.
func (st *Store) importFile(ctx context.Context, db *sql.DB, path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var row pendingRow
	if err := json.Unmarshal(data, &row); err != nil || row.ID == "" || row.ID+".json" != filepath.Base(path) {
		return fmt.Errorf("not a pending session row: %v", err)
	}
	dirs, _ := json.Marshal(nonNil(row.Dirs))
	plan, _ := json.Marshal(nonNilPlan(row.Plan))
	config, _ := json.Marshal(nonNilMap(row.Config))
	_, err = db.ExecContext(ctx, `INSERT INTO sessions (id, cwd, dirs, title, mode, model, plan, config, created, updated, deleted)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
		ON CONFLICT(id) DO UPDATE SET cwd=excluded.cwd, dirs=excluded.dirs, title=excluded.title, mode=excluded.mode,
			model=excluded.model, plan=excluded.plan, config=excluded.config
		WHERE sessions.deleted = 0 AND sessions.updated <= excluded.updated`,
		row.ID, row.Cwd, string(dirs), row.Title, row.Mode, row.Model, string(plan), string(config), row.Created, row.Updated)
	if err != nil {
		return st.failed(fmt.Errorf("import session %s: %w", row.ID, err))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removePending deletes the pending row of id, if any.
func (st *Store) removePending(id string) error {
	if !pendingName(id) {
		return nil
	}
	if err := os.Remove(st.pendingPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func nonNilPlan(p []PlanItem) []PlanItem {
	if p == nil {
		return []PlanItem{}
	}
	return p
}

// lookUpPending imports id's pending row before the session is read or
// saved; a row that cannot be imported is logged and left for the next
// look-up (the database's own row, if any, is used meanwhile).
func (st *Store) lookUpPending(ctx context.Context, db *sql.DB, id string) {
	if err := st.importPending(ctx, db, id); err != nil {
		st.log.Warn("pending session row not imported", "session", id, "error", err)
	}
}
