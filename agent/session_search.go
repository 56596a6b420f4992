package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/registry"
)

// The session_search tool is the agent's own (hermes's agent-loop tool): it
// searches every stored message of every session of $HERMES_HOME (the
// store's full-text index), scrolls around a message of one, reads one, or
// lists the recent sessions. No model calls: every shape returns messages
// from the database. Each session binds its own handler (it leaves itself
// out: its messages are already in the model's context).

// sessionSearchName is the session_search tool's name.
const sessionSearchName = "session_search"

// Limits of session_search (hermes's session_search_tool.py).
const (
	searchDefaultLimit  = 3
	searchMaxLimit      = 10
	searchDefaultWindow = 5
	searchMaxWindow     = 20
	searchHitWindow     = 5    // messages each side of a discovery match
	searchBookend       = 3    // first/last user and assistant messages of a full result
	searchWindowChars   = 4000 // content of a window message
	searchBookendChars  = 1200 // content of a bookend message
	searchReadHead      = 20   // a read of a large session: its first messages
	searchReadTail      = 10   // … and its last
)

var sessionSearchSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{
			"type": "string",
			"description": "Search query (discovery shape). Keywords, phrases, or boolean expressions to find in past sessions. " +
				"Omit to browse recent sessions. Ignored when session_id + around_message_id are set (scroll shape).",
		},
		"limit": map[string]any{
			"type":        "integer",
			"description": "Discovery shape only. Max sessions to return (default 3, max 10). Bump to 5–10 when the topic likely spans several sessions and you want to pick the right one to scroll into.",
			"default":     searchDefaultLimit,
		},
		"sort": map[string]any{
			"type": "string",
			"enum": []any{"newest", "oldest"},
			"description": "Discovery shape only. Omit to keep relevance-only ordering (\"what do we know about X\"). " +
				"Set 'newest' for recency-shaped questions (\"where did we leave X\"), 'oldest' for origin-shaped ones (\"how did X start\").",
		},
		"detail": map[string]any{
			"type":        "string",
			"enum":        []any{"adaptive", "full"},
			"description": "Discovery shape only. 'adaptive' (default) fully hydrates the top-ranked result and returns only the exact anchor message for lower-ranked results. 'full' returns bookends and the complete anchored window for every result.",
			"default":     "adaptive",
		},
		"session_id": map[string]any{
			"type":        "string",
			"description": "Scroll shape: the session to read inside (a session_id from a prior discovery call), paired with around_message_id. Alone: read the whole session.",
		},
		"around_message_id": map[string]any{
			"type":        "integer",
			"description": "Scroll shape. Message id to center the window on: a discovery result's match_message_id, or any id seen in a prior window. To scroll forward pass the last window message's id; to scroll backward pass the first.",
		},
		"window": map[string]any{
			"type":        "integer",
			"description": "Scroll shape only. Messages to return on each side of the anchor (anchor itself always included). Clamped to [1, 20]. Default 5.",
			"default":     searchDefaultWindow,
		},
		"role_filter": map[string]any{
			"type":        "string",
			"description": "Optional. Comma-separated roles to include. Discovery defaults to 'user,assistant' (tool output is usually noise). Pass 'user,assistant,tool' to include tool output or 'tool' to search tool output only.",
		},
	},
}

const sessionSearchDescription = "Search past sessions stored in the local session database, or scroll inside one. " +
	"FTS5-backed retrieval over every stored message of every session. No LLM calls: every shape returns actual messages.\n\n" +
	"FOUR CALLING SHAPES\n" +
	"  1) DISCOVERY: pass `query`, e.g. session_search(query=\"auth refactor\", limit=3). Returns the best-matching sessions " +
	"(one result each): session_id, title, when, snippet (the match, terms between >>> and <<<), match_message_id, messages " +
	"(±5 around the match for the top result, only the match for the others unless detail=\"full\"), bookend_start/bookend_end " +
	"(the first/last 3 user and assistant messages of full results), messages_before, messages_after.\n" +
	"  2) SCROLL: pass `session_id` + `around_message_id` (+ `window`, default 5): the messages around the anchor. To scroll " +
	"forward pass messages[-1].id back as around_message_id, backward messages[0].id. When messages_before or messages_after " +
	"is < window you are at the start or end of the session.\n" +
	"  3) READ: pass `session_id` only: the whole session (first 20 + last 10 messages when large).\n" +
	"  4) BROWSE: no arguments: the recent sessions with titles, previews and dates (\"what was I working on\").\n\n" +
	"FTS5 SYNTAX: AND is the default (all terms required). Use OR for broader recall (`alpha OR beta`), quoted phrases for " +
	"exact match (`\"docker networking\"`), NOT (`python NOT java`), or prefixes (`deploy*`).\n\n" +
	"This searches conversation history only, not the current state of files or systems: inspect a source the user names " +
	"directly before relying on what was said about it. The current session is not searched (it is already in your context)."

func sessionSearchEntry() registry.Entry {
	return registry.Entry{
		Name:         sessionSearchName,
		Toolset:      "session_search",
		Emoji:        "🔍",
		Description:  sessionSearchDescription,
		Schema:       sessionSearchSchema,
		Kind:         registry.KindSearch,
		ReadOnly:     true,
		Idempotent:   true,
		ParallelSafe: true,
		Title:        sessionSearchTitle,
		Render:       sessionSearchRender,
	}
}

// sessionSearchTool is the session_search entry bound to session s.
func (s *Session) sessionSearchTool() registry.Entry {
	e := sessionSearchEntry()
	e.Handler = func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		var p searchParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		return sessionSearch(ctx, s.store, s.id, p), nil
	}
	return e
}

type searchParams struct {
	Query           string `json:"query"`
	Limit           *int   `json:"limit"`
	Sort            string `json:"sort"`
	Detail          string `json:"detail"`
	SessionID       string `json:"session_id"`
	AroundMessageID *int64 `json:"around_message_id"`
	Window          *int   `json:"window"`
	RoleFilter      string `json:"role_filter"`
}

// searchFailed is hermes's tool_error(msg, success=False).
func searchFailed(format string, args ...any) registry.Result {
	return registry.Failed(map[string]any{"success": false, "error": fmt.Sprintf(format, args...)})
}

// sessionSearch runs one call: scroll (session_id + around_message_id),
// read (session_id), discovery (query) or browse (nothing), as hermes
// infers the shape from the arguments. current is the asking session.
func sessionSearch(ctx context.Context, st *store.Store, current string, p searchParams) registry.Result {
	if st == nil {
		return searchFailed("Session database not available: sessions are not stored (no $HERMES_HOME).")
	}
	sid := strings.TrimSpace(p.SessionID)
	switch {
	case sid != "" && p.AroundMessageID != nil:
		w := searchDefaultWindow
		if p.Window != nil {
			w = max(1, min(*p.Window, searchMaxWindow))
		}
		return searchScroll(ctx, st, current, sid, *p.AroundMessageID, w)
	case sid != "":
		return searchRead(ctx, st, sid)
	}
	limit := searchDefaultLimit
	if p.Limit != nil {
		limit = max(1, min(*p.Limit, searchMaxLimit))
	}
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return searchBrowse(ctx, st, current, limit)
	}
	var roles []string
	for r := range strings.SplitSeq(p.RoleFilter, ",") {
		if r = strings.TrimSpace(r); r != "" {
			roles = append(roles, r)
		}
	}
	sort := strings.ToLower(strings.TrimSpace(p.Sort))
	if sort != "newest" && sort != "oldest" {
		sort = ""
	}
	detail := "adaptive"
	if strings.EqualFold(strings.TrimSpace(p.Detail), "full") {
		detail = "full"
	}
	return searchDiscover(ctx, st, current, store.Query{Text: q, Roles: roles, Sort: sort, Limit: limit, Exclude: current}, detail)
}

// searchMessage is a message as the model reads it.
type searchMessage struct {
	ID                   int64    `json:"id"`
	Role                 string   `json:"role"`
	Content              string   `json:"content"`
	Timestamp            float64  `json:"timestamp"`
	ToolName             string   `json:"tool_name,omitempty"`
	ToolCalls            []string `json:"tool_calls,omitempty"`
	ToolCallID           string   `json:"tool_call_id,omitempty"`
	Anchor               bool     `json:"anchor,omitempty"`
	ContentTruncated     bool     `json:"content_truncated,omitempty"`
	OriginalContentChars int      `json:"original_content_chars,omitempty"`
}

func shapeMessages(msgs []store.Message, anchor int64, maxChars int) []searchMessage {
	out := make([]searchMessage, 0, len(msgs))
	for _, m := range msgs {
		sm := searchMessage{ID: m.ID, Role: m.Role, Content: m.Content, Timestamp: float64(m.At.UnixMilli()) / 1000,
			ToolName: m.ToolName, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Anchor: anchor != 0 && m.ID == anchor}
		if r := []rune(m.Content); maxChars > 0 && len(r) > maxChars {
			sm.Content, sm.ContentTruncated, sm.OriginalContentChars = string(r[:maxChars])+"…", true, len(r)
		}
		out = append(out, sm)
	}
	return out
}

// searchWhen is hermes's date of a session: "March 01, 2026 at 10:00 AM".
func searchWhen(t time.Time) string { return t.Local().Format("January 02, 2006 at 03:04 PM") }

// searchNullable is s, or JSON null when it is empty (hermes: title or None).
func searchNullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type sessionMeta struct {
	When  string `json:"when"`
	Model string `json:"model,omitempty"`
	Title any    `json:"title"`
}

func metaOf(rec store.Record) sessionMeta {
	return sessionMeta{When: searchWhen(rec.Created), Model: rec.Model, Title: searchNullable(rec.Title)}
}

// searchError turns a store failure into the tool's error result.
func searchError(op string, err error) registry.Result {
	return searchFailed("%s: %v", op, err)
}

type discoverHit struct {
	SessionID      string          `json:"session_id"`
	When           string          `json:"when"`
	Model          string          `json:"model,omitempty"`
	Title          any             `json:"title"`
	MatchedRole    string          `json:"matched_role"`
	MatchMessageID int64           `json:"match_message_id"`
	Snippet        string          `json:"snippet"`
	BookendStart   []searchMessage `json:"bookend_start"`
	Messages       []searchMessage `json:"messages"`
	BookendEnd     []searchMessage `json:"bookend_end"`
	MessagesBefore int             `json:"messages_before"`
	MessagesAfter  int             `json:"messages_after"`
	Detail         string          `json:"detail"`
}

type discoverResult struct {
	Success          bool          `json:"success"`
	Mode             string        `json:"mode"`
	Query            string        `json:"query"`
	Detail           string        `json:"detail"`
	Results          []discoverHit `json:"results"`
	Count            int           `json:"count"`
	SessionsSearched int           `json:"sessions_searched,omitempty"`
	Message          string        `json:"message,omitempty"`
}

func searchDiscover(ctx context.Context, st *store.Store, current string, q store.Query, detail string) registry.Result {
	hits, err := st.Search(ctx, q)
	if err != nil {
		return searchError("Search failed", err)
	}
	res := discoverResult{Success: true, Mode: "discover", Query: q.Text, Detail: detail, Results: []discoverHit{}}
	if len(hits) == 0 {
		res.Message = "No matching sessions found."
		return registry.OK(res)
	}
	for _, h := range hits {
		rec, err := st.Session(ctx, h.SessionID)
		if errors.Is(err, store.ErrNoSession) {
			continue // deleted meanwhile
		}
		if err != nil {
			return searchError("Search failed", err)
		}
		d := "compact"
		if detail == "full" || len(res.Results) == 0 {
			d = "full"
		}
		w, err := st.Around(ctx, h.SessionID, h.MessageID, searchHitWindow)
		if errors.Is(err, store.ErrNoMessage) {
			continue // the session was reset meanwhile
		}
		if err != nil {
			return searchError("Search failed", err)
		}
		hit := discoverHit{SessionID: h.SessionID, When: searchWhen(rec.Created), Model: rec.Model, Title: searchNullable(rec.Title),
			MatchedRole: h.Role, MatchMessageID: h.MessageID, Snippet: h.Snippet, BookendStart: []searchMessage{},
			BookendEnd: []searchMessage{}, MessagesBefore: w.Before, MessagesAfter: w.After, Detail: d}
		msgs := w.Messages
		if d == "compact" {
			msgs = nil
			for _, m := range w.Messages {
				if m.ID == h.MessageID {
					msgs = append(msgs, m)
				}
			}
		} else {
			start, end, err := st.Bookends(ctx, h.SessionID, searchBookend)
			if err != nil {
				return searchError("Search failed", err)
			}
			hit.BookendStart = shapeMessages(start, 0, searchBookendChars)
			hit.BookendEnd = shapeMessages(end, 0, searchBookendChars)
		}
		hit.Messages = shapeMessages(msgs, h.MessageID, searchWindowChars)
		res.Results = append(res.Results, hit)
	}
	res.Count, res.SessionsSearched = len(res.Results), len(hits)
	return registry.OK(res)
}

type scrollResult struct {
	Success         bool            `json:"success"`
	Mode            string          `json:"mode"`
	SessionID       string          `json:"session_id"`
	AroundMessageID int64           `json:"around_message_id"`
	SessionMeta     sessionMeta     `json:"session_meta"`
	Window          int             `json:"window"`
	Messages        []searchMessage `json:"messages"`
	MessagesBefore  int             `json:"messages_before"`
	MessagesAfter   int             `json:"messages_after"`
}

func searchScroll(ctx context.Context, st *store.Store, current, sid string, anchor int64, window int) registry.Result {
	if sid == current {
		return searchFailed("scroll rejected: anchor lives in the current session lineage (already in your active context)")
	}
	rec, err := st.Session(ctx, sid)
	if errors.Is(err, store.ErrNoSession) {
		return searchFailed("session_id not found: %s", sid)
	}
	if err != nil {
		return searchError("failed to load messages", err)
	}
	w, err := st.Around(ctx, sid, anchor, window)
	if errors.Is(err, store.ErrNoMessage) {
		return searchFailed("around_message_id %d not in session_id %s", anchor, sid)
	}
	if err != nil {
		return searchError("failed to load messages", err)
	}
	return registry.OK(scrollResult{Success: true, Mode: "scroll", SessionID: sid, AroundMessageID: anchor, SessionMeta: metaOf(rec),
		Window: window, Messages: shapeMessages(w.Messages, anchor, 0), MessagesBefore: w.Before, MessagesAfter: w.After})
}

type readResult struct {
	Success      bool            `json:"success"`
	Mode         string          `json:"mode"`
	SessionID    string          `json:"session_id"`
	SessionMeta  sessionMeta     `json:"session_meta"`
	MessageCount int             `json:"message_count"`
	Truncated    bool            `json:"truncated"`
	Messages     []searchMessage `json:"messages"`
	Message      string          `json:"message,omitempty"`
}

func searchRead(ctx context.Context, st *store.Store, sid string) registry.Result {
	rec, err := st.Session(ctx, sid)
	if errors.Is(err, store.ErrNoSession) {
		return searchFailed("session_id not found: %s", sid)
	}
	if err != nil {
		return searchError("failed to load session", err)
	}
	msgs, err := st.Messages(ctx, sid)
	if err != nil {
		return searchError("failed to load session", err)
	}
	res := readResult{Success: true, Mode: "read", SessionID: sid, SessionMeta: metaOf(rec), MessageCount: len(msgs)}
	if len(msgs) > searchReadHead+searchReadTail {
		res.Truncated = true
		res.Message = fmt.Sprintf("Session has %d messages; showing first %d + last %d. Pass around_message_id (any id above) to scroll the middle.",
			len(msgs), searchReadHead, searchReadTail)
		msgs = append(msgs[:searchReadHead:searchReadHead], msgs[len(msgs)-searchReadTail:]...)
	}
	res.Messages = shapeMessages(msgs, 0, 0)
	return registry.OK(res)
}

type browseSession struct {
	SessionID    string `json:"session_id"`
	Title        any    `json:"title"`
	StartedAt    string `json:"started_at"`
	LastActive   string `json:"last_active"`
	MessageCount int    `json:"message_count"`
	Preview      string `json:"preview"`
}

type browseResult struct {
	Success bool            `json:"success"`
	Mode    string          `json:"mode"`
	Results []browseSession `json:"results"`
	Count   int             `json:"count"`
	Message string          `json:"message"`
}

func searchBrowse(ctx context.Context, st *store.Store, current string, limit int) registry.Result {
	recent, err := st.Recent(ctx, limit, current)
	if err != nil {
		return searchError("Failed to list recent sessions", err)
	}
	res := browseResult{Success: true, Mode: "browse", Results: []browseSession{}}
	for _, r := range recent {
		res.Results = append(res.Results, browseSession{SessionID: r.ID, Title: searchNullable(r.Title), StartedAt: searchWhen(r.Created),
			LastActive: searchWhen(r.Updated), MessageCount: r.Messages, Preview: r.Preview})
	}
	res.Count = len(res.Results)
	res.Message = fmt.Sprintf("Showing %d most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll.", res.Count)
	return registry.OK(res)
}

// sessionSearchTitle is "session search: <query>", or "recent sessions"
// when there is none (hermes); a scroll or read names its session.
func sessionSearchTitle(args map[string]any) string {
	if q := strings.TrimSpace(str(args, "query")); q != "" && (str(args, "session_id") == "" || args["around_message_id"] == nil) {
		return "session search: " + q
	}
	if id := strings.TrimSpace(str(args, "session_id")); id != "" {
		return "session search: " + id
	}
	return "recent sessions"
}

// sessionSearchRender lists what a call found, for the editor.
func sessionSearchRender(_ map[string]any, r registry.Result) string {
	var b strings.Builder
	switch res := r.Value.(type) {
	case discoverResult:
		if len(res.Results) == 0 {
			return "No matching sessions found."
		}
		fmt.Fprintf(&b, "Found %d matching session(s):\n", len(res.Results))
		for _, h := range res.Results {
			fmt.Fprintf(&b, "- **%s** (%s, %s): %s\n", searchTitleOr(h.Title, h.SessionID), h.When, h.MatchedRole, searchOneLine(h.Snippet, 200))
		}
	case scrollResult:
		fmt.Fprintf(&b, "**%s** (%s), around message %d:\n", searchTitleOr(res.SessionMeta.Title, res.SessionID), res.SessionMeta.When, res.AroundMessageID)
		searchRenderMessages(&b, res.Messages)
	case readResult:
		fmt.Fprintf(&b, "**%s** (%s), %d messages:\n", searchTitleOr(res.SessionMeta.Title, res.SessionID), res.SessionMeta.When, res.MessageCount)
		searchRenderMessages(&b, res.Messages)
	case browseResult:
		if len(res.Results) == 0 {
			return "No stored sessions."
		}
		fmt.Fprintf(&b, "%d recent session(s):\n", len(res.Results))
		for _, s := range res.Results {
			fmt.Fprintf(&b, "- **%s** (%s, %d messages): %s\n", searchTitleOr(s.Title, s.SessionID), s.LastActive, s.MessageCount, s.Preview)
		}
	default:
		return ""
	}
	return strings.TrimSpace(b.String())
}

func searchRenderMessages(b *strings.Builder, msgs []searchMessage) {
	for _, m := range msgs {
		mark := ""
		if m.Anchor {
			mark = " ◀"
		}
		fmt.Fprintf(b, "- %s #%d: %s%s\n", m.Role, m.ID, searchOneLine(m.Content, 200), mark)
	}
}

func searchTitleOr(title any, id string) string {
	if t, ok := title.(string); ok && t != "" {
		return t
	}
	return id
}

// searchOneLine is s on one line, cut to n characters.
func searchOneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
