package agent

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/agent/internal/store"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

func searchStore(t *testing.T) *store.Store {
	t.Helper()
	st := store.New(t.TempDir(), slog.New(slog.DiscardHandler), nil)
	t.Cleanup(func() { st.Close() })
	return st
}

func saveSearchSession(t *testing.T, st *store.Store, id string, at time.Time, msgs ...model.Message) {
	t.Helper()
	rec := store.Record{ID: id, Cwd: "/w", Title: "title " + id, Mode: "default", Created: at, Updated: at}
	if err := st.Save(context.Background(), rec, false, msgs); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestSessionSearchLimitsAndShapes ports hermes's clamps and shapes: limit
// is clamped to [1, 10] (default 3), window to [1, 20] (default 5), an
// unknown sort keeps relevance order, adaptive detail hydrates only the top
// result, and a read of a long session shows its first 20 and last 10
// messages.
func TestSessionSearchLimitsAndShapes(t *testing.T) {
	t.Parallel()
	st := searchStore(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range 12 {
		saveSearchSession(t, st, fmt.Sprintf("s%02d", i), t0.Add(time.Duration(i)*time.Minute),
			model.Message{Role: model.RoleUser, Content: "the quokka report"}, model.Message{Role: model.RoleAssistant, Content: "done"})
	}
	var long []model.Message
	for i := range 45 {
		long = append(long, model.Message{Role: model.RoleUser, Content: fmt.Sprintf("line %d", i)})
	}
	saveSearchSession(t, st, "long", t0, long...)

	discover := func(p searchParams) discoverResult {
		t.Helper()
		r := sessionSearch(ctx, st, "", p)
		res, ok := r.Value.(discoverResult)
		if !ok || r.IsError {
			t.Fatalf("%+v: %+v", p, r)
		}
		return res
	}
	for _, c := range []struct {
		limit *int
		want  int
	}{{nil, 3}, {ptr(50), 10}, {ptr(0), 1}, {ptr(-4), 1}, {ptr(5), 5}} {
		if got := discover(searchParams{Query: "quokka", Limit: c.limit}); got.Count != c.want {
			t.Errorf("limit %v: %d results, want %d", c.limit, got.Count, c.want)
		}
	}
	res := discover(searchParams{Query: "quokka", Sort: "sideways"})
	if res.Results[0].Detail != "full" || res.Results[1].Detail != "compact" || len(res.Results[1].Messages) != 1 ||
		len(res.Results[1].BookendStart) != 0 || len(res.Results[0].BookendStart) != 2 || len(res.Results[0].Messages) != 2 {
		t.Errorf("adaptive detail = %+v", res.Results[:2])
	}
	full := discover(searchParams{Query: "quokka", Detail: "full"})
	for _, h := range full.Results {
		if h.Detail != "full" || len(h.Messages) != 2 {
			t.Errorf("full detail = %+v", h)
		}
	}
	newest := discover(searchParams{Query: "quokka", Sort: "newest"})
	if newest.Results[0].SessionID != "s11" {
		t.Errorf("newest first = %s", newest.Results[0].SessionID)
	}

	read := sessionSearch(ctx, st, "", searchParams{SessionID: "long"}).Value.(readResult)
	if !read.Truncated || read.MessageCount != 45 || len(read.Messages) != 30 || read.Messages[19].Content != "line 19" || read.Messages[20].Content != "line 35" {
		t.Errorf("read of 45 messages: truncated %v, %d shown, %q", read.Truncated, len(read.Messages), read.Message)
	}
	mid := read.Messages[10].ID
	for _, c := range []struct {
		window     *int
		wantBefore int
	}{{nil, 5}, {ptr(100), 10}, {ptr(0), 1}} {
		r := sessionSearch(ctx, st, "", searchParams{SessionID: "long", AroundMessageID: &mid, Window: c.window})
		sc, ok := r.Value.(scrollResult)
		if !ok || sc.MessagesBefore != c.wantBefore {
			t.Errorf("window %v: %+v", c.window, r.Value)
		}
	}
	// A window of 100 is clamped to 20: 20 after the anchor at most.
	r := sessionSearch(ctx, st, "", searchParams{SessionID: "long", AroundMessageID: &mid, Window: ptr(100)})
	if sc := r.Value.(scrollResult); sc.Window != 20 || sc.MessagesAfter != 20 {
		t.Errorf("window 100: window %d, after %d", sc.Window, sc.MessagesAfter)
	}
	bad := int64(1)
	if r := sessionSearch(ctx, st, "", searchParams{SessionID: "long", AroundMessageID: &bad}); !r.IsError {
		t.Errorf("anchor of another session: %+v", r.Value)
	}
	if r := sessionSearch(ctx, nil, "", searchParams{Query: "x"}); !r.IsError {
		t.Errorf("no store: %+v", r)
	}
	if got := sessionSearchTitle(map[string]any{"query": "quokka"}); got != "session search: quokka" {
		t.Errorf("title = %q", got)
	}
	if got := sessionSearchTitle(map[string]any{}); got != "recent sessions" {
		t.Errorf("title = %q", got)
	}
	if got := sessionSearchRender(nil, registry.OK(res)); got == "" {
		t.Error("no rendering of a discovery")
	}
}
