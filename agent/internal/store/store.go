// Package store keeps hermes-acp's sessions in $HERMES_HOME/sessions.db
// (SQLite through modernc.org/sqlite, the only package that imports it).
//
// The database is opened on first use, never during initialize. A [Store]
// is safe for concurrent use, also by several hermes-acp processes (WAL
// mode, busy timeout): messages are only ever appended, so processes saving
// one session keep each other's. A damaged database, or one of a newer
// schema, turns persistence off for the process and is never written to;
// the problem is shown in the chat (through the notify func given to [New]).
//
// [Store.Save] commits before it returns: the agent saves a session's
// messages before the editor hears of what follows them, so that a kill -9
// loses at most the event in flight. The database is in WAL mode with
// synchronous=NORMAL: a committed transaction is in the WAL file (the
// operating system's cache) and survives the process being killed; only a
// power cut or an operating-system crash may lose the last transactions
// (never corrupting the file). No lock of the store is held while a
// database job, a notification or a log write runs.
package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/model"

	"modernc.org/sqlite" // database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// PageSize is the number of sessions per session/list page.
const PageSize = 50

// Store is the session database of one $HERMES_HOME.
type Store struct {
	path   string
	log    *slog.Logger
	notify func(text string) // shows a problem in the chat; nil: log only

	checkOnce    sync.Once
	saveFailOnce sync.Once
	openOnce     sync.Once // opens the database (or records why not)

	openMu sync.Mutex // guards db and err; never held while the database is used
	db     *sql.DB    // nil until opened
	err    error      // why persistence is off; nil: it is on
}

// New returns the store of home (its database is home/sessions.db, opened
// on first use); log receives its problems, and notify (may be nil) shows
// them in the chat. notify and log are called with no lock of the store
// held.
func New(home string, log *slog.Logger, notify func(string)) *Store {
	st := &Store{path: filepath.Join(home, "sessions.db"), log: log, notify: notify}
	return st
}

// schemaVersion is the database's user_version this code reads and writes.
// Version 1 (user_version 0) kept each message at a position of its session,
// so that two processes appending to one session overwrote each other's
// messages; version 2 appends every message as its own row with a stable id;
// version 3 adds the full-text index of messages (search.go); version 4
// adds sessions.config, the session's config options other than its mode
// and model (a session is stored from session/new on, with them).
// A database with a higher version is never written.
const schemaVersion = 4

// schema creates version 2's tables (inside the caller's transaction).
// messages.id orders a session's history across processes; role and
// content are columns of their own so that a full-text index can use them.
const schema = `
CREATE TABLE IF NOT EXISTS sessions (
	id      TEXT PRIMARY KEY,
	cwd     TEXT NOT NULL,
	dirs    TEXT NOT NULL DEFAULT '[]',
	title   TEXT NOT NULL DEFAULT '',
	mode    TEXT NOT NULL DEFAULT 'default',
	model   TEXT NOT NULL DEFAULT '',
	plan    TEXT NOT NULL DEFAULT '[]',
	config  TEXT NOT NULL DEFAULT '{}',
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(deleted, updated DESC, id DESC);
CREATE TABLE IF NOT EXISTS messages (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL,
	role       TEXT NOT NULL,
	content    TEXT NOT NULL DEFAULT '',
	extra      TEXT NOT NULL DEFAULT '{}',
	created    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_session ON messages(session_id, id);`

// Problem is why persistence is off; its Error is the sentence shown
// in the chat.
type Problem struct {
	msg string
	err error
}

func (p *Problem) Error() string { return p.msg }
func (p *Problem) Unwrap() error { return p.err }

func (st *Store) damaged(err error) error {
	return &Problem{err: err, msg: fmt.Sprintf("The session database %s is damaged (%v), so conversations are not saved and earlier ones cannot be loaded. "+
		"hermes-acp leaves the file untouched: move it away (or restore a backup) and restart the agent to save sessions again.", st.path, err)}
}

func (st *Store) unreadable(err error) error {
	return &Problem{err: err, msg: fmt.Sprintf("The session database %s cannot be opened (%v), so conversations are not saved and earlier ones cannot be loaded.", st.path, err)}
}

func (st *Store) newer(version int) error {
	return &Problem{msg: fmt.Sprintf("The session database %s was written by a newer hermes-acp (schema version %d; this one knows up to %d), "+
		"so conversations are not saved and earlier ones cannot be loaded. The file is left untouched: update hermes-acp to use it.", st.path, version, schemaVersion)}
}

// sqliteHeader is the first 16 bytes of every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// Check looks at the database file's header, without opening it: a file
// that is not SQLite, or whose schema is newer than this code, turns
// persistence off before anything is written. It is cheap (one 100-byte
// read) and runs once, at the first prompt, so that the problem is shown in
// the chat at once; [Store.open] checks fully on first use.
func (st *Store) Check() {
	var err error
	st.checkOnce.Do(func() { err = st.checkHeader() })
	if err != nil {
		st.fail(err) // reports outside the Once: other callers do not wait on the log
	}
}

func (st *Store) checkHeader() error {
	f, err := os.Open(st.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return st.unreadable(err)
	}
	defer f.Close()
	var h [100]byte
	n, err := io.ReadFull(f, h[:])
	switch {
	case n == 0:
		return nil // SQLite treats an empty file as an empty database
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return st.unreadable(err)
	case n < len(h) || string(h[:len(sqliteHeader)]) != sqliteHeader:
		return st.damaged(errors.New("it is not an SQLite database"))
	}
	if v := int32(binary.BigEndian.Uint32(h[60:64])); v > schemaVersion {
		return st.newer(int(v))
	}
	return nil
}

// ReportSaveFailure shows the first failed save of the process in the chat
// (the save is tried again when the turn ends and at each later turn).
func (st *Store) ReportSaveFailure(err error) {
	first := false
	st.saveFailOnce.Do(func() { first = true })
	if first && st.notify != nil {
		st.notify(fmt.Sprintf("Saving this conversation to %s failed (%v); hermes-acp tries again when the turn ends and at each later turn.", st.path, err))
	}
}

// fail turns persistence off for the rest of the process and reports why
// in the chat (once).
func (st *Store) fail(err error) {
	st.openMu.Lock()
	first := st.err == nil
	if first {
		st.err = err
	}
	st.openMu.Unlock()
	if first {
		st.report(err)
	}
}

// report logs why persistence is off and shows it in the chat.
func (st *Store) report(err error) {
	st.log.Error("session database unusable; sessions are not saved", "path", st.path, "error", err)
	if st.notify != nil {
		st.notify(err.Error())
	}
}

// isCorrupt reports whether err is SQLite's "damaged file" error.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// failed classifies an error of a database operation: a damaged file turns
// persistence off; err is returned either way.
func (st *Store) failed(err error) error {
	if isCorrupt(err) {
		p := st.damaged(err)
		st.fail(p)
		return p
	}
	return err
}

// open opens the database on first use, checking it before anything is
// written: a damaged file or one of a newer schema is left untouched and
// persistence is off (reported in the chat once); an old-schema database is
// migrated. After a failure it returns the same error.
func (st *Store) open() (*sql.DB, error) {
	st.Check()
	if _, err := st.state(); err != nil {
		return nil, err
	}
	var failed error
	st.openOnce.Do(func() {
		db, err := st.openDB() // openMu is not held: fail and Close go on meanwhile
		if err == nil {
			st.importAllPending(context.Background(), db) // pending.go
		}
		st.openMu.Lock()
		if err != nil && st.err == nil {
			st.err, failed = err, err
		} else if err == nil {
			st.db = db
		}
		st.openMu.Unlock()
	})
	if failed != nil {
		st.report(failed) // once: only the opening call sees failed
	}
	return st.state()
}

// state returns the open database (nil before the first open) and why
// persistence is off (nil: it is on).
func (st *Store) state() (*sql.DB, error) {
	st.openMu.Lock()
	defer st.openMu.Unlock()
	if st.err != nil {
		return nil, st.err
	}
	return st.db, nil
}

func (st *Store) openDB() (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(st.path), 0o700); err != nil {
		return nil, st.unreadable(fmt.Errorf("create %s: %w", filepath.Dir(st.path), err))
	}
	// journal_mode is set only after the checks: it writes to the file.
	dsn := "file:" + st.path + "?_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, st.unreadable(err)
	}
	db.SetMaxOpenConns(1)
	if err := st.prepare(db); err != nil {
		db.Close()
		return nil, err
	}
	_ = os.Chmod(st.path, 0o600)
	return db, nil
}

// prepare checks the database, then creates or migrates its schema.
func (st *Store) prepare(db *sql.DB) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return st.classify(err)
	}
	defer conn.Close()
	var version int
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return st.classify(err)
	}
	if version > schemaVersion {
		return st.newer(version)
	}
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
		return st.classify(err)
	}
	if version == schemaVersion {
		return nil
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA journal_mode=WAL`); err != nil {
		return st.classify(err)
	}
	// BEGIN IMMEDIATE: of two processes opening an old database at once,
	// one migrates and the other then sees the new version.
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return st.classify(err)
	}
	if err := migrate(ctx, conn); err != nil {
		_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		return st.classify(fmt.Errorf("prepare %s: %w", st.path, err))
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		return st.classify(fmt.Errorf("prepare %s: %w", st.path, err))
	}
	return nil
}

// classify turns an error met while opening into the problem to report.
func (st *Store) classify(err error) error {
	if isCorrupt(err) {
		return st.damaged(err)
	}
	return st.unreadable(err)
}

// migrate brings a database to schemaVersion inside the caller's
// transaction: it creates the tables, and moves version 1's messages (one
// JSON document per position) into rows of their own, in order.
func migrate(ctx context.Context, conn *sql.Conn) error {
	var version int
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version == schemaVersion {
		return nil // another process migrated it first
	}
	if version > schemaVersion {
		return fmt.Errorf("schema version %d appeared while opening", version)
	}
	var v1 int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('messages') WHERE name = 'seq'`).Scan(&v1); err != nil {
		return err
	}
	if v1 > 0 {
		if _, err := conn.ExecContext(ctx, `ALTER TABLE messages RENAME TO messages_v1`); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, schema); err != nil {
		return err
	}
	if v1 > 0 {
		if err := migrateV1(ctx, conn); err != nil {
			return fmt.Errorf("migrate messages: %w", err)
		}
	}
	var config int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'config'`).Scan(&config); err != nil {
		return err
	}
	if config == 0 { // version 3 or older: CREATE TABLE IF NOT EXISTS kept the old table
		if _, err := conn.ExecContext(ctx, `ALTER TABLE sessions ADD COLUMN config TEXT NOT NULL DEFAULT '{}'`); err != nil {
			return fmt.Errorf("add sessions.config: %w", err)
		}
	}
	if version < 3 {
		if err := createIndex(ctx, conn); err != nil {
			return fmt.Errorf("index messages: %w", err)
		}
	}
	_, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion))
	return err
}

func migrateV1(ctx context.Context, conn *sql.Conn) error {
	type oldRow struct {
		session, data string
		at            int64
	}
	rows, err := conn.QueryContext(ctx, `SELECT m.session_id, m.data, coalesce(s.updated, 0) FROM messages_v1 m
		LEFT JOIN sessions s ON s.id = m.session_id ORDER BY m.session_id, m.seq`)
	if err != nil {
		return err
	}
	var old []oldRow
	for rows.Next() {
		var r oldRow
		if err := rows.Scan(&r.session, &r.data, &r.at); err != nil {
			rows.Close()
			return err
		}
		old = append(old, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range old {
		var sm storedMessage
		if err := json.Unmarshal([]byte(r.data), &sm); err != nil {
			// Keep what cannot be read, as content, rather than lose it.
			sm = storedMessage{Role: string(model.RoleUser), Content: r.data}
		}
		if err := insertMessage(ctx, conn, r.session, fromStored(sm), time.UnixMilli(r.at)); err != nil {
			return err
		}
	}
	_, err = conn.ExecContext(ctx, `DROP TABLE messages_v1`)
	return err
}

// errClosed is the error of a save after [Store.Close] on a store that was
// never opened.
var errClosed = errors.New("session store closed")

// Close closes the database; later saves fail.
func (st *Store) Close() error {
	// Waits for an open under way; a store never opened stays closed.
	st.openOnce.Do(func() {
		st.openMu.Lock()
		if st.err == nil {
			st.err = errClosed
		}
		st.openMu.Unlock()
	})
	st.openMu.Lock()
	db := st.db
	st.openMu.Unlock()
	if db == nil {
		return nil
	}
	return db.Close()
}

// Record is a session row.
type Record struct {
	ID, Cwd, Title, Mode, Model string
	Dirs                        []string
	Plan                        []PlanItem
	// Config holds the session's config options other than its mode and
	// model, by option id (the terminal backend); nil: none.
	Config           map[string]string
	Created, Updated time.Time
}

// PlanItem is an entry of a session's stored plan (the todo list).
type PlanItem struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// storedMessage is the JSON form of a model.Message in a version 1
// database; version 2 keeps Role and Content in columns and the rest in
// messages.extra.
type storedMessage struct {
	Role       string        `json:"role,omitempty"`
	Content    string        `json:"content,omitempty"`
	Thought    string        `json:"thought,omitempty"`
	ToolCalls  []storedCall  `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
	Name       string        `json:"name,omitempty"`
	IsError    bool          `json:"is_error,omitempty"`
	Images     []storedImage `json:"images,omitempty"`
	// Reasoning keeps Anthropic's signed thinking blocks across restarts.
	Reasoning []model.ReasoningBlock `json:"reasoning,omitempty"`
	// ID and Display are the agent's: the message's id for the editor and
	// how the editor was shown it (model.Message).
	ID      string          `json:"message_id,omitempty"`
	Display json.RawMessage `json:"display,omitempty"`
}

type storedCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type storedImage struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

func toStored(m model.Message) storedMessage {
	sm := storedMessage{Role: string(m.Role), Content: m.Content, Thought: m.Thought, ToolCallID: m.ToolCallID, Name: m.Name, IsError: m.IsError, Reasoning: m.Reasoning, ID: m.ID, Display: m.Display}
	for _, c := range m.ToolCalls {
		sm.ToolCalls = append(sm.ToolCalls, storedCall(c))
	}
	for _, im := range m.Images {
		sm.Images = append(sm.Images, storedImage{MIMEType: im.MIMEType, Data: im.Data})
	}
	return sm
}

func fromStored(sm storedMessage) model.Message {
	m := model.Message{Role: model.Role(sm.Role), Content: sm.Content, Thought: sm.Thought, ToolCallID: sm.ToolCallID, Name: sm.Name, IsError: sm.IsError, Reasoning: sm.Reasoning, ID: sm.ID, Display: sm.Display}
	for _, c := range sm.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, model.ToolCall(c))
	}
	for _, im := range sm.Images {
		m.Images = append(m.Images, model.Image{MIMEType: im.MIMEType, Data: im.Data})
	}
	return m
}

// execer is a *sql.Tx or *sql.Conn.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertMessage appends one message to a session's stored history.
func insertMessage(ctx context.Context, db execer, session string, m model.Message, at time.Time) error {
	sm := toStored(m)
	role, content := sm.Role, sm.Content
	sm.Role, sm.Content = "", ""
	extra, err := json.Marshal(sm)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO messages (session_id, role, content, extra, created) VALUES (?, ?, ?, ?, ?)`,
		session, role, content, string(extra), at.UnixMilli())
	return err
}

// Save upserts the session row and appends msgs to its stored history, in
// one transaction; with reset (after /reset) the stored history is deleted
// first. Messages are never written over: two processes saving one session
// both keep theirs, in the order they were saved.
func (st *Store) Save(ctx context.Context, rec Record, reset bool, msgs []model.Message) error {
	if len(msgs) == 0 && !reset {
		if db, err := st.state(); err == nil && db == nil { // not opened yet: a pending row (pending.go)
			if ok, err := st.savePending(rec); ok {
				return err
			}
		}
	}
	db, err := st.open()
	if err != nil {
		return err
	}
	st.lookUpPending(ctx, db, rec.ID)
	if err := st.saveTx(ctx, db, rec, reset, msgs); err != nil {
		return st.failed(fmt.Errorf("save session %s: %w", rec.ID, err))
	}
	return nil
}

func (st *Store) saveTx(ctx context.Context, db *sql.DB, rec Record, reset bool, msgs []model.Message) error {
	dirs, _ := json.Marshal(nonNil(rec.Dirs))
	plan, _ := json.Marshal(rec.Plan)
	config, _ := json.Marshal(nonNilMap(rec.Config))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, cwd, dirs, title, mode, model, plan, config, created, updated, deleted)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
		ON CONFLICT(id) DO UPDATE SET cwd=excluded.cwd, dirs=excluded.dirs, title=excluded.title, mode=excluded.mode,
			model=excluded.model, plan=excluded.plan, config=excluded.config, updated=max(updated, excluded.updated), deleted=0`,
		rec.ID, rec.Cwd, string(dirs), rec.Title, rec.Mode, rec.Model, string(plan), string(config), rec.Created.UnixMilli(), rec.Updated.UnixMilli())
	if err != nil {
		return err
	}
	if reset {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, rec.ID); err != nil {
			return err
		}
	}
	for _, m := range msgs {
		if err := insertMessage(ctx, tx, rec.ID, m, rec.Updated); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// ErrNoSession means the store has no (undeleted) session with that id.
var ErrNoSession = errors.New("agent: no stored session")

// load returns a stored session and its history.
func (st *Store) Load(ctx context.Context, id string) (Record, []model.Message, error) {
	db, err := st.open()
	if err != nil {
		return Record{}, nil, err
	}
	st.lookUpPending(ctx, db, id)
	rec, err := scanRecord(db.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM sessions WHERE id = ? AND deleted = 0`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, nil, ErrNoSession
	}
	if err != nil {
		return Record{}, nil, st.failed(fmt.Errorf("load session %s: %w", id, err))
	}
	msgs, err := loadMessages(ctx, db, id)
	if err != nil {
		return Record{}, nil, st.failed(fmt.Errorf("load session %s: %w", id, err))
	}
	return rec, msgs, nil
}

// loadMessages returns a session's stored history in the order it was
// saved, by every process.
func loadMessages(ctx context.Context, db *sql.DB, id string) ([]model.Message, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, role, content, extra FROM messages WHERE session_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var msgs []model.Message
	for rows.Next() {
		var n int64
		var sm storedMessage
		var extra string
		if err := rows.Scan(&n, &sm.Role, &sm.Content, &extra); err != nil {
			return nil, err
		}
		role, content := sm.Role, sm.Content
		if err := json.Unmarshal([]byte(extra), &sm); err != nil {
			return nil, fmt.Errorf("message %d: %w", n, err)
		}
		sm.Role, sm.Content = role, content
		msgs = append(msgs, fromStored(sm))
	}
	return msgs, rows.Err()
}

type scanner interface{ Scan(dest ...any) error }

// recordColumns are the columns scanRecord reads, in its order.
const recordColumns = `id, cwd, dirs, title, mode, model, plan, config, created, updated`

func scanRecord(row scanner) (Record, error) {
	var rec Record
	var dirs, plan, config string
	var created, updated int64
	if err := row.Scan(&rec.ID, &rec.Cwd, &dirs, &rec.Title, &rec.Mode, &rec.Model, &plan, &config, &created, &updated); err != nil {
		return rec, err
	}
	_ = json.Unmarshal([]byte(dirs), &rec.Dirs)
	_ = json.Unmarshal([]byte(plan), &rec.Plan)
	_ = json.Unmarshal([]byte(config), &rec.Config)
	if len(rec.Config) == 0 {
		rec.Config = nil
	}
	rec.Created, rec.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return rec, nil
}

// List returns a page of sessions, most recently updated first. cursor is
// the opaque value of a previous page's next cursor. A session with no
// message yet (created, never prompted) is not listed: it can be loaded,
// but a list of empty conversations helps nobody.
func (st *Store) List(ctx context.Context, cwd, cursor string) ([]Record, string, error) {
	db, err := st.open()
	if err != nil {
		return nil, "", err
	}
	q := `SELECT ` + recordColumns + ` FROM sessions WHERE deleted = 0 AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id)`
	var args []any
	if cwd != "" {
		q += ` AND cwd = ?`
		args = append(args, cwd)
	}
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (updated < ? OR (updated = ? AND id < ?))`
		args = append(args, at, at, id)
	}
	q += ` ORDER BY updated DESC, id DESC LIMIT ?`
	args = append(args, PageSize+1)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", st.failed(fmt.Errorf("list sessions: %w", err))
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		rec, err := scanRecord(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list sessions: %w", err)
	}
	next := ""
	if len(out) > PageSize {
		out = out[:PageSize]
		last := out[len(out)-1]
		next = encodeCursor(last.Updated.UnixMilli(), last.ID)
	}
	return out, next, nil
}

func encodeCursor(at int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at, 10) + "|" + id))
}

func decodeCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		if at, id, ok := strings.Cut(string(b), "|"); ok {
			if n, err := strconv.ParseInt(at, 10, 64); err == nil && id != "" {
				return n, id, nil
			}
		}
	}
	return 0, "", fmt.Errorf("%w: %q", ErrCursor, c)
}

// ErrCursor means a List cursor is not one a previous page returned.
var ErrCursor = errors.New("not a cursor returned by session/list")

// Remove marks a session deleted; unknown ids are fine.
func (st *Store) Remove(ctx context.Context, id string) error {
	db, err := st.open()
	if err != nil {
		return err
	}
	if err := st.removePending(id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return st.failed(fmt.Errorf("delete session %s: %w", id, err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET deleted = 1 WHERE id = ?`, id); err != nil {
		return st.failed(fmt.Errorf("delete session %s: %w", id, err))
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, id); err != nil {
		return st.failed(fmt.Errorf("delete session %s: %w", id, err))
	}
	if err := tx.Commit(); err != nil {
		return st.failed(fmt.Errorf("delete session %s: %w", id, err))
	}
	return nil
}
