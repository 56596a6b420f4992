package store

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model"
)

// BenchmarkStoreFirstSave measures the first save of a process on a fresh
// $HERMES_HOME: creating the database (schema, full-text index) and one
// message. Since saves are durable (#13) this is on the first prompt's
// reply path.
func BenchmarkStoreFirstSave(b *testing.B) {
	ctx := context.Background()
	for range b.N {
		st := New(b.TempDir(), slog.New(slog.DiscardHandler), nil)
		rec := Record{ID: "sess_bench", Cwd: "/w", Created: time.Now(), Updated: time.Now()}
		if err := st.Save(ctx, rec, false, []model.Message{userMsg("hello")}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
