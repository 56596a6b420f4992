package workspace

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder collects delivered batches.
type recorder struct {
	mu      sync.Mutex
	batches [][]string
}

func (r *recorder) deliver(b []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, slices.Clone(b))
}

func (r *recorder) got() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

func equalBatches(a, b [][]string) bool {
	return slices.EqualFunc(a, b, slices.Equal[[]string])
}

func TestDebouncer(t *testing.T) {
	const delay = 100 * time.Millisecond
	type step struct {
		after time.Duration // sleep before adding (virtual time)
		add   []string
	}
	for _, tc := range []struct {
		name  string
		steps []step
		// wait after the last step before checking
		settle time.Duration
		want   [][]string
	}{
		{
			name:   "quiet period not over",
			steps:  []step{{0, []string{"a"}}},
			settle: delay - time.Millisecond,
			want:   nil,
		},
		{
			name:   "one batch after the quiet period",
			steps:  []step{{0, []string{"a"}}},
			settle: delay,
			want:   [][]string{{"a"}},
		},
		{
			name:   "burst coalesces, deduplicated, first-seen order",
			steps:  []step{{0, []string{"b", "a"}}, {30 * time.Millisecond, []string{"a", "c"}}, {30 * time.Millisecond, []string{"b"}}},
			settle: delay,
			want:   [][]string{{"b", "a", "c"}},
		},
		{
			name:   "each event restarts the quiet period",
			steps:  []step{{0, []string{"a"}}, {90 * time.Millisecond, []string{"b"}}},
			settle: 90 * time.Millisecond,
			want:   nil,
		},
		{
			name:   "separate bursts give separate batches in order",
			steps:  []step{{0, []string{"a"}}, {150 * time.Millisecond, []string{"b"}}, {150 * time.Millisecond, []string{"a"}}},
			settle: delay,
			want:   [][]string{{"a"}, {"b"}, {"a"}},
		},
		{
			name: "a steady stream is cut at maxWait",
			steps: func() []step {
				var s []step
				for i := range 25 {
					s = append(s, step{45 * time.Millisecond, []string{string(rune('a' + i))}})
				}
				return s
			}(),
			settle: 0,
			// maxWait 1s after the first event (45ms): the events at
			// 45ms..1035ms form the first batch; x and y are still pending.
			want: [][]string{{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w"}},
		},
		{
			name:   "empty add does nothing",
			steps:  []step{{0, nil}},
			settle: time.Second,
			want:   nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec recorder
				d := newDebouncer(delay, maxWaitFactor*delay, rec.deliver)
				defer d.close()
				for _, s := range tc.steps {
					time.Sleep(s.after)
					d.add(s.add...)
				}
				time.Sleep(tc.settle)
				synctest.Wait()
				if got := rec.got(); !equalBatches(got, tc.want) {
					t.Errorf("batches = %q, want %q", got, tc.want)
				}
			})
		})
	}
}

// Adds that arrive while a batch is being delivered form the next batch.
func TestDebouncerAddDuringDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		var d *debouncer
		release := make(chan struct{})
		first := true
		d = newDebouncer(10*time.Millisecond, 100*time.Millisecond, func(b []string) {
			if first {
				first = false
				d.add("during")
				<-release
			}
			rec.deliver(b)
		})
		defer d.close()
		d.add("x")
		time.Sleep(10 * time.Millisecond)
		synctest.Wait() // the callback is now blocked on release
		close(release)
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		if got, want := rec.got(), [][]string{{"x"}, {"during"}}; !equalBatches(got, want) {
			t.Errorf("batches = %q, want %q", got, want)
		}
	})
}

// close stops the goroutine and drops what is pending.
func TestDebouncerClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		d := newDebouncer(10*time.Millisecond, 100*time.Millisecond, rec.deliver)
		d.add("pending")
		d.close()
		d.close() // idempotent
		time.Sleep(time.Second)
		synctest.Wait()
		if got := rec.got(); got != nil {
			t.Errorf("batches after close = %q, want none", got)
		}
	})
}
