package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The full-text index of every stored message (schema version 3): an FTS5
// table over messages.content, kept by triggers in the transaction that
// saves, deletes or resets messages, so that it never lags the history. A
// database of an older version is indexed once, when it is migrated.
const indexSchema = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, content='messages', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;`

// createIndex creates the index and its triggers and builds it from the
// messages already stored (inside the migration's transaction).
func createIndex(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, indexSchema); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`)
	return err
}

// scanLimit is how many matching messages a search reads before keeping the
// best one of each session (hermes's _DISCOVER_SCAN_LIMIT).
const scanLimit = 300

// Query is a full-text search of the stored messages.
type Query struct {
	Text    string   // FTS5 syntax; plain words that are not valid syntax are quoted
	Roles   []string // the roles searched; empty: user and assistant
	Sort    string   // "newest", "oldest", or "" for relevance
	Limit   int      // sessions returned (each with its best match)
	Exclude string   // a session left out (the one asking); "" none
}

// Hit is a session's best matching message.
type Hit struct {
	MessageID int64
	SessionID string
	Role      string
	Snippet   string // the match in context, terms between >>> and <<<
	At        time.Time
}

// Search returns the best matching message of up to q.Limit sessions,
// ranked by relevance (or by time with q.Sort).
func (st *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	db, err := st.open()
	if err != nil {
		return nil, err
	}
	hits, err := searchRows(ctx, db, q, q.Text)
	if err != nil && isSyntax(err) {
		hits, err = searchRows(ctx, db, q, quoteTerms(q.Text))
	}
	if err != nil {
		return nil, st.failed(fmt.Errorf("search sessions: %w", err))
	}
	return hits, nil
}

// searchRows runs the search in steps, so that the work per query does
// not grow with the number of matches beyond FTS5's own ranking: the index
// ranks and limits the matching message ids, a page at a time; the rows of
// a page are read to apply the role filter and keep the best match of each
// session, until limit sessions are found or scanLimit matches of the
// wanted roles were seen; then snippets are made for the few kept.
func searchRows(ctx context.Context, db *sql.DB, q Query, match string) ([]Hit, error) {
	roles := map[string]bool{}
	for _, r := range q.Roles {
		roles[r] = true
	}
	if len(roles) == 0 {
		roles = map[string]bool{"user": true, "assistant": true}
	}
	order := "rank"
	switch q.Sort {
	case "newest":
		order = "rowid DESC"
	case "oldest":
		order = "rowid"
	}
	var hits []Hit
	seen := map[string]bool{}
	scanned := 0
	for offset := 0; len(hits) < q.Limit && scanned < scanLimit; offset += scanLimit {
		ids, err := matchIDs(ctx, db, match, order, offset)
		if err != nil {
			return nil, err
		}
		page, err := hitRows(ctx, db, ids)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			h, ok := page[id.(int64)]
			if !ok || !roles[h.Role] {
				continue
			}
			scanned++
			if seen[h.SessionID] || h.SessionID == q.Exclude || len(hits) == q.Limit {
				continue
			}
			seen[h.SessionID] = true
			hits = append(hits, h)
		}
		if len(ids) < scanLimit {
			break
		}
	}
	for i := range hits {
		err := db.QueryRowContext(ctx, `SELECT snippet(messages_fts, 0, '>>>', '<<<', '...', 40) FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`,
			match, hits[i].MessageID).Scan(&hits[i].Snippet)
		if err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// matchIDs returns a page of the ids of the messages matching, in order.
func matchIDs(ctx context.Context, db *sql.DB, match, order string, offset int) ([]any, error) {
	rows, err := db.QueryContext(ctx, `SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY `+order+` LIMIT ? OFFSET ?`, match, scanLimit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// hitRows reads the messages of ids that belong to undeleted sessions.
func hitRows(ctx context.Context, db *sql.DB, ids []any) (map[int64]Hit, error) {
	out := map[int64]Hit{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT m.id, m.session_id, m.role, m.created FROM messages m CROSS JOIN sessions s ON s.id = m.session_id
		WHERE m.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) AND s.deleted = 0`, ids...) // CROSS JOIN: look the ids up, then their sessions
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		var at int64
		if err := rows.Scan(&h.MessageID, &h.SessionID, &h.Role, &at); err != nil {
			return nil, err
		}
		h.At = time.UnixMilli(at)
		out[h.MessageID] = h
	}
	return out, rows.Err()
}

// isSyntax reports whether err is FTS5's complaint about a query.
func isSyntax(err error) bool {
	s := err.Error()
	return strings.Contains(s, "fts5: syntax error") || strings.Contains(s, "unterminated string") ||
		strings.Contains(s, "no such column") || strings.Contains(s, "unknown special query")
}

// quoteTerms makes every word of text a quoted FTS5 string, so that
// punctuation the model typed (a path, "C++", a colon) is searched as text.
func quoteTerms(text string) string {
	var out []string
	for _, w := range strings.Fields(text) {
		out = append(out, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	return strings.Join(out, " ")
}

// Message is a stored message as session_search shows it.
type Message struct {
	ID         int64
	Role       string
	Content    string
	ToolName   string
	ToolCallID string
	ToolCalls  []string // names of the tools an assistant message called
	At         time.Time
}

const messageCols = `id, role, content, extra, created`

func scanMessages(rows *sql.Rows) ([]Message, error) {
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var extra string
		var at int64
		if err := rows.Scan(&m.ID, &m.Role, &m.Content, &extra, &at); err != nil {
			return nil, err
		}
		var sm storedMessage
		if err := json.Unmarshal([]byte(extra), &sm); err == nil {
			m.ToolName, m.ToolCallID = sm.Name, sm.ToolCallID
			for _, c := range sm.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, c.Name)
			}
		}
		m.At = time.UnixMilli(at)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Window is the messages of a session around one of them.
type Window struct {
	Messages []Message
	Before   int // messages of Messages before the anchor
	After    int // messages of Messages after the anchor
}

// ErrNoMessage means the session has no message with that id.
var ErrNoMessage = errors.New("no such message in the session")

// Around returns the anchor message of session and up to window messages
// on each side of it, in order.
func (st *Store) Around(ctx context.Context, session string, anchor int64, window int) (Window, error) {
	db, err := st.open()
	if err != nil {
		return Window{}, err
	}
	w, err := around(ctx, db, session, anchor, window, nil)
	if err != nil && !errors.Is(err, ErrNoMessage) {
		return Window{}, st.failed(fmt.Errorf("read session %s: %w", session, err))
	}
	return w, err
}

// around reads the window; roles, if not nil, restricts the messages shown.
func around(ctx context.Context, db *sql.DB, session string, anchor int64, window int, roles []string) (Window, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE id = ? AND session_id = ?`, anchor, session).Scan(&n); err != nil {
		return Window{}, err
	}
	if n == 0 {
		return Window{}, ErrNoMessage
	}
	rows, err := db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, session, anchor, window)
	if err != nil {
		return Window{}, err
	}
	before, err := scanMessages(rows)
	if err != nil {
		return Window{}, err
	}
	rows, err = db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages WHERE session_id = ? AND id >= ? ORDER BY id LIMIT ?`, session, anchor, window+1)
	if err != nil {
		return Window{}, err
	}
	after, err := scanMessages(rows)
	if err != nil {
		return Window{}, err
	}
	w := Window{Before: len(before), After: len(after) - 1}
	for i := len(before) - 1; i >= 0; i-- {
		w.Messages = append(w.Messages, before[i])
	}
	w.Messages = append(w.Messages, after...)
	return w, nil
}

// Bookends returns the first and the last n user and assistant messages of
// a session (with content), the goal and the outcome of its conversation.
func (st *Store) Bookends(ctx context.Context, session string, n int) (start, end []Message, err error) {
	db, err := st.open()
	if err != nil {
		return nil, nil, err
	}
	q := `SELECT ` + messageCols + ` FROM messages WHERE session_id = ? AND role IN ('user', 'assistant') AND content <> '' ORDER BY id %s LIMIT ?`
	rows, err := db.QueryContext(ctx, fmt.Sprintf(q, "ASC"), session, n)
	if err == nil {
		start, err = scanMessages(rows)
	}
	if err == nil {
		rows, err = db.QueryContext(ctx, fmt.Sprintf(q, "DESC"), session, n)
	}
	if err == nil {
		end, err = scanMessages(rows)
	}
	if err != nil {
		return nil, nil, st.failed(fmt.Errorf("read session %s: %w", session, err))
	}
	for i, j := 0, len(end)-1; i < j; i, j = i+1, j-1 {
		end[i], end[j] = end[j], end[i]
	}
	return start, end, nil
}

// Messages returns every stored message of a session, in order.
func (st *Store) Messages(ctx context.Context, session string) ([]Message, error) {
	db, err := st.open()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages WHERE session_id = ? ORDER BY id`, session)
	if err != nil {
		return nil, st.failed(fmt.Errorf("read session %s: %w", session, err))
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, st.failed(fmt.Errorf("read session %s: %w", session, err))
	}
	return msgs, nil
}

// Session returns a stored session's record (ErrNoSession if there is none).
func (st *Store) Session(ctx context.Context, id string) (Record, error) {
	db, err := st.open()
	if err != nil {
		return Record{}, err
	}
	st.lookUpPending(ctx, db, id)
	rec, err := scanRecord(db.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM sessions WHERE id = ? AND deleted = 0`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, ErrNoSession
	}
	if err != nil {
		return Record{}, st.failed(fmt.Errorf("read session %s: %w", id, err))
	}
	return rec, nil
}

// Summary is a session as a list of recent sessions shows it.
type Summary struct {
	Record
	Messages int    // stored messages
	Preview  string // the start of its first user message
}

// previewChars is the length of a Summary's preview (hermes: 60).
const previewChars = 60

// Recent returns up to limit sessions, most recently active first, leaving
// out exclude.
func (st *Store) Recent(ctx context.Context, limit int, exclude string) ([]Summary, error) {
	db, err := st.open()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT id, cwd, dirs, title, mode, model, plan, created, updated,
		(SELECT count(*) FROM messages m WHERE m.session_id = s.id),
		coalesce((SELECT substr(content, 1, ?) FROM messages m WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.id LIMIT 1), '')
		FROM sessions s WHERE deleted = 0 AND id <> ? AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)
		ORDER BY updated DESC, id DESC LIMIT ?`, previewChars*4, exclude, limit)
	if err != nil {
		return nil, st.failed(fmt.Errorf("list sessions: %w", err))
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var sum Summary
		var dirs, plan string
		var created, updated int64
		if err := rows.Scan(&sum.ID, &sum.Cwd, &dirs, &sum.Title, &sum.Mode, &sum.Model, &plan, &created, &updated, &sum.Messages, &sum.Preview); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		_ = json.Unmarshal([]byte(dirs), &sum.Dirs)
		_ = json.Unmarshal([]byte(plan), &sum.Plan)
		sum.Created, sum.Updated = time.UnixMilli(created), time.UnixMilli(updated)
		sum.Preview = preview(sum.Preview)
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// preview is the first previewChars characters of s on one line.
func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > previewChars {
		return string(r[:previewChars]) + "..."
	}
	return s
}
