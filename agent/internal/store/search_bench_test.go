package store

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchSessions and benchPerSession size the search benchmark: 10 000
// sessions of 100 messages, a million messages (issue #13).
const (
	benchSessions   = 10_000
	benchPerSession = 100
)

// fillSearchBench writes the benchmark's sessions straight into a new store
// at home, then builds the index as the migration of an older database
// does (one rebuild; it logs how long that took): messages of 8–40 words
// drawn from a 20 000-word vocabulary with a Zipf distribution, roles
// cycling user, assistant, tool, assistant; every 1000th session mentions
// "zanzibar migration".
func fillSearchBench(b *testing.B, home string) *Store {
	b.Helper()
	st := New(home, slog.New(slog.DiscardHandler), nil)
	db, err := st.open()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, 19_999)
	words := make([]string, 20_000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx%s", i, strings.Repeat("e", i%5))
	}
	roles := []string{"user", "assistant", "tool", "assistant"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TRIGGER messages_fts_insert`); err != nil {
		b.Fatal(err)
	}
	insSession, _ := tx.PrepareContext(ctx, `INSERT INTO sessions (id, cwd, title, created, updated) VALUES (?, '/w', ?, ?, ?)`)
	insMsg, _ := tx.PrepareContext(ctx, `INSERT INTO messages (session_id, role, content, created) VALUES (?, ?, ?, ?)`)
	var sb strings.Builder
	for s := range benchSessions {
		id := fmt.Sprintf("sess_%05d", s)
		at := base + int64(s)*60_000
		if _, err := insSession.ExecContext(ctx, id, fmt.Sprintf("Session %d", s), at, at); err != nil {
			b.Fatal(err)
		}
		for m := range benchPerSession {
			sb.Reset()
			for w := range 8 + rng.IntN(33) {
				if w > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(words[zipf.Uint64()])
			}
			if s%1000 == 7 && m == 49 {
				sb.WriteString(" the zanzibar migration runs on fridays")
			}
			if _, err := insMsg.ExecContext(ctx, id, roles[m%4], sb.String(), at); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	t := time.Now()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if err := createIndex(ctx, conn); err != nil {
		b.Fatal(err)
	}
	b.Logf("index of %d messages built in %s", benchSessions*benchPerSession, time.Since(t).Round(time.Millisecond))
	return st
}

// BenchmarkSessionSearch measures session_search's store queries over a
// million stored messages; it reports the median time of one query
// (ms-median) beside Go's mean. Run it with
//
//	go test ./agent/internal/store -run '^$' -bench SessionSearch -benchtime 50x
func BenchmarkSessionSearch(b *testing.B) {
	start := time.Now()
	st := fillSearchBench(b, b.TempDir())
	b.Logf("filled %d sessions, %d messages in %s", benchSessions, benchSessions*benchPerSession, time.Since(start).Round(time.Second))
	defer st.Close()
	ctx := context.Background()
	cases := []struct {
		name string
		q    Query
		min  int // hits the query must return
	}{
		{"rare_phrase", Query{Text: `"zanzibar migration"`, Limit: 3}, 3},
		{"mid_word", Query{Text: "w500x", Limit: 3}, 3},
		{"two_words", Query{Text: "w40x w41xe", Limit: 3}, 3},
		{"mid_word_newest", Query{Text: "w500x", Sort: "newest", Limit: 10}, 10},
		{"tool_role", Query{Text: "w500x", Roles: []string{"tool"}, Limit: 3}, 3},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				t := time.Now()
				hits, err := st.Search(ctx, c.q)
				times = append(times, time.Since(t))
				if err != nil || len(hits) < c.min {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
			reportMedian(b, times)
		})
	}
	// What one discovery call of session_search reads: the hits, then for
	// each its session, its window and (for the top one) the bookends.
	b.Run("discover_call", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			t := time.Now()
			hits, err := st.Search(ctx, Query{Text: "w500x", Limit: 3})
			for i, h := range hits {
				if err == nil {
					_, err = st.Session(ctx, h.SessionID)
				}
				if err == nil {
					_, err = st.Around(ctx, h.SessionID, h.MessageID, 5)
				}
				if err == nil && i == 0 {
					_, _, err = st.Bookends(ctx, h.SessionID, 3)
				}
			}
			times = append(times, time.Since(t))
			if err != nil || len(hits) != 3 {
				b.Fatalf("%d hits, %v", len(hits), err)
			}
		}
		reportMedian(b, times)
	})
	b.Run("around", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			t := time.Now()
			w, err := st.Around(ctx, "sess_05007", 500_751, 5)
			times = append(times, time.Since(t))
			if err != nil || len(w.Messages) != 11 {
				b.Fatalf("%d messages, %v", len(w.Messages), err)
			}
		}
		reportMedian(b, times)
	})
	b.Run("recent", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			t := time.Now()
			r, err := st.Recent(ctx, 3, "")
			times = append(times, time.Since(t))
			if err != nil || len(r) != 3 {
				b.Fatalf("%d sessions, %v", len(r), err)
			}
		}
		reportMedian(b, times)
	})
}

func reportMedian(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
}
