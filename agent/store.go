package agent

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// listPageSize is the number of sessions per session/list page.
const listPageSize = 50

// store keeps sessions in $HERMES_HOME/sessions.db. The database is opened
// on first use, never during initialize. It is safe for concurrent use, also
// by several hermes-acp processes (WAL mode, busy timeout).
//
// Saves run in order on one writer goroutine, off the prompt's reply path
// ([store.enqueue]), and start only after saveDelay without new saves, so
// that they do not compete with a turn that follows at once (a queued
// prompt); readers call [store.flush], which runs them now. close stops
// the writer after the queued saves.
type store struct {
	path string
	log  *slog.Logger

	once sync.Once
	db   *sql.DB
	err  error

	delay time.Duration // saveDelay; tests may shorten it

	mu      sync.Mutex // guards queue, running, stopped and wake
	queue   []func()
	running bool
	stopped bool
	wake    chan struct{} // closed to make the writer start at once
	idle    *sync.Cond    // signalled when the queue empties
	wg      sync.WaitGroup
}

// saveDelay is how long the writer waits for the session to go quiet.
const saveDelay = 200 * time.Millisecond

func newStore(home string, log *slog.Logger) *store {
	st := &store{path: filepath.Join(home, "sessions.db"), log: log, delay: saveDelay}
	st.idle = sync.NewCond(&st.mu)
	return st
}

// enqueue runs job on the writer goroutine after the jobs before it.
func (st *store) enqueue(job func()) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped {
		job() // after close: run inline (the database is closed; job reports it)
		return
	}
	st.queue = append(st.queue, job)
	if !st.running {
		st.running = true
		st.wake = make(chan struct{})
		st.wg.Add(1)
		go st.drain(st.wake)
	}
}

func (st *store) drain(wake <-chan struct{}) {
	defer st.wg.Done()
	t := time.NewTimer(st.delay)
	select {
	case <-t.C:
	case <-wake:
		t.Stop()
	}
	st.mu.Lock()
	for len(st.queue) > 0 {
		job := st.queue[0]
		st.queue = st.queue[1:]
		st.mu.Unlock()
		job()
		st.mu.Lock()
	}
	st.running = false
	st.idle.Broadcast()
	st.mu.Unlock()
}

// flush runs the queued saves now and waits until they are done.
func (st *store) flush() {
	st.mu.Lock()
	if st.running && st.wake != nil {
		select {
		case <-st.wake:
		default:
			close(st.wake)
		}
	}
	for st.running {
		st.idle.Wait()
	}
	st.mu.Unlock()
}

// schema creates the tables in one transaction (one commit, not three).
const schema = `
BEGIN;
CREATE TABLE IF NOT EXISTS sessions (
	id      TEXT PRIMARY KEY,
	cwd     TEXT NOT NULL,
	dirs    TEXT NOT NULL DEFAULT '[]',
	title   TEXT NOT NULL DEFAULT '',
	mode    TEXT NOT NULL DEFAULT 'default',
	model   TEXT NOT NULL DEFAULT '',
	plan    TEXT NOT NULL DEFAULT '[]',
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(deleted, updated DESC, id DESC);
CREATE TABLE IF NOT EXISTS messages (
	session_id TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	data       TEXT NOT NULL,
	PRIMARY KEY (session_id, seq)
);
COMMIT;`

func (st *store) open() (*sql.DB, error) {
	st.once.Do(func() {
		if err := os.MkdirAll(filepath.Dir(st.path), 0o700); err != nil {
			st.err = fmt.Errorf("create %s: %w", filepath.Dir(st.path), err)
			return
		}
		dsn := "file:" + st.path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			st.err = fmt.Errorf("open %s: %w", st.path, err)
			return
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(schema); err != nil {
			db.Close()
			st.err = fmt.Errorf("prepare %s: %w", st.path, err)
			return
		}
		_ = os.Chmod(st.path, 0o600)
		st.db = db
	})
	return st.db, st.err
}

func (st *store) close() error {
	st.flush()
	st.mu.Lock()
	if st.stopped {
		st.mu.Unlock()
		return nil
	}
	st.stopped = true
	st.mu.Unlock()
	st.wg.Wait()
	if st.db == nil {
		return nil
	}
	return st.db.Close()
}

// sessionRecord is a session row.
type sessionRecord struct {
	ID, Cwd, Title, Mode, Model string
	Dirs                        []string
	Plan                        []todoItem
	Created, Updated            time.Time
}

// storedMessage is the JSON form of a model.Message in the database.
type storedMessage struct {
	Role       string        `json:"role"`
	Content    string        `json:"content,omitempty"`
	Thought    string        `json:"thought,omitempty"`
	ToolCalls  []storedCall  `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
	Name       string        `json:"name,omitempty"`
	Images     []storedImage `json:"images,omitempty"`
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
	sm := storedMessage{Role: string(m.Role), Content: m.Content, Thought: m.Thought, ToolCallID: m.ToolCallID, Name: m.Name}
	for _, c := range m.ToolCalls {
		sm.ToolCalls = append(sm.ToolCalls, storedCall(c))
	}
	for _, im := range m.Images {
		sm.Images = append(sm.Images, storedImage{MIMEType: im.MIMEType, Data: im.Data})
	}
	return sm
}

func fromStored(sm storedMessage) model.Message {
	m := model.Message{Role: model.Role(sm.Role), Content: sm.Content, Thought: sm.Thought, ToolCallID: sm.ToolCallID, Name: sm.Name}
	for _, c := range sm.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, model.ToolCall(c))
	}
	for _, im := range sm.Images {
		m.Images = append(m.Images, model.Image{MIMEType: im.MIMEType, Data: im.Data})
	}
	return m
}

// save upserts the session row and appends msgs at positions from, from+1…
func (st *store) save(ctx context.Context, rec sessionRecord, from int, msgs []model.Message) error {
	db, err := st.open()
	if err != nil {
		return err
	}
	dirs, _ := json.Marshal(nonNil(rec.Dirs))
	plan, _ := json.Marshal(rec.Plan)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save session %s: %w", rec.ID, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, cwd, dirs, title, mode, model, plan, created, updated, deleted)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
		ON CONFLICT(id) DO UPDATE SET cwd=excluded.cwd, dirs=excluded.dirs, title=excluded.title, mode=excluded.mode,
			model=excluded.model, plan=excluded.plan, updated=excluded.updated, deleted=0`,
		rec.ID, rec.Cwd, string(dirs), rec.Title, rec.Mode, rec.Model, string(plan), rec.Created.UnixMilli(), rec.Updated.UnixMilli())
	if err != nil {
		return fmt.Errorf("save session %s: %w", rec.ID, err)
	}
	if from == 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, rec.ID); err != nil {
			return fmt.Errorf("save session %s: %w", rec.ID, err)
		}
	}
	for i, m := range msgs {
		data, err := json.Marshal(toStored(m))
		if err != nil {
			return fmt.Errorf("encode message: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO messages (session_id, seq, data) VALUES (?, ?, ?)`, rec.ID, from+i, string(data)); err != nil {
			return fmt.Errorf("save session %s: %w", rec.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save session %s: %w", rec.ID, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errNoSession means the store has no (undeleted) session with that id.
var errNoSession = errors.New("agent: no stored session")

// load returns a stored session and its history.
func (st *store) load(ctx context.Context, id string) (sessionRecord, []model.Message, error) {
	db, err := st.open()
	if err != nil {
		return sessionRecord{}, nil, err
	}
	rec, err := scanRecord(db.QueryRowContext(ctx, `SELECT id, cwd, dirs, title, mode, model, plan, created, updated FROM sessions WHERE id = ? AND deleted = 0`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return sessionRecord{}, nil, errNoSession
	}
	if err != nil {
		return sessionRecord{}, nil, fmt.Errorf("load session %s: %w", id, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT data FROM messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return sessionRecord{}, nil, fmt.Errorf("load session %s: %w", id, err)
	}
	defer rows.Close()
	var msgs []model.Message
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return sessionRecord{}, nil, fmt.Errorf("load session %s: %w", id, err)
		}
		var sm storedMessage
		if err := json.Unmarshal([]byte(data), &sm); err != nil {
			return sessionRecord{}, nil, fmt.Errorf("load session %s: corrupt message: %w", id, err)
		}
		msgs = append(msgs, fromStored(sm))
	}
	return rec, msgs, rows.Err()
}

type scanner interface{ Scan(dest ...any) error }

func scanRecord(row scanner) (sessionRecord, error) {
	var rec sessionRecord
	var dirs, plan string
	var created, updated int64
	if err := row.Scan(&rec.ID, &rec.Cwd, &dirs, &rec.Title, &rec.Mode, &rec.Model, &plan, &created, &updated); err != nil {
		return rec, err
	}
	_ = json.Unmarshal([]byte(dirs), &rec.Dirs)
	_ = json.Unmarshal([]byte(plan), &rec.Plan)
	rec.Created, rec.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return rec, nil
}

// list returns a page of sessions, most recently updated first. cursor is
// the opaque value of a previous page's next cursor.
func (st *store) list(ctx context.Context, cwd, cursor string) ([]sessionRecord, string, error) {
	db, err := st.open()
	if err != nil {
		return nil, "", err
	}
	q := `SELECT id, cwd, dirs, title, mode, model, plan, created, updated FROM sessions WHERE deleted = 0`
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
	args = append(args, listPageSize+1)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []sessionRecord
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
	if len(out) > listPageSize {
		out = out[:listPageSize]
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
	return 0, "", acp.InvalidParams("cursor: %q is not a cursor returned by session/list", c)
}

// remove marks a session deleted; unknown ids are fine.
func (st *store) remove(ctx context.Context, id string) error {
	db, err := st.open()
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET deleted = 1 WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// persist queues a save of the session's new history (and its metadata) on
// the store's writer; it does not wait for it.
func (s *Session) persist() {
	st := s.a.store
	if st == nil {
		return
	}
	s.mu.Lock()
	if !s.dirty && (len(s.history) == 0 || s.queued == len(s.history)) {
		s.mu.Unlock()
		return
	}
	rec := sessionRecord{ID: s.id, Cwd: s.cwd, Dirs: s.dirs, Title: s.title, Mode: s.mode, Model: s.modelName,
		Plan: append([]todoItem{}, s.plan...), Created: s.created, Updated: s.updated}
	from := s.queued
	if s.dirty {
		from = 0 // rewritten (e.g. /reset): save the whole history again
	}
	msgs := append([]model.Message(nil), s.history[from:]...)
	s.queued, s.dirty = len(s.history), false
	s.mu.Unlock()
	st.enqueue(func() {
		defer releaseHugeSave(msgs)
		if err := st.save(context.Background(), rec, from, msgs); err != nil {
			s.a.log.Error("persist session", "session", s.id, "error", err)
			s.mu.Lock()
			s.dirty = true // save everything next time
			s.mu.Unlock()
		}
	})
}

// resetStored forgets the stored history after /reset.
func (s *Session) resetStored() {
	s.mu.Lock()
	s.dirty = true
	s.mu.Unlock()
}
