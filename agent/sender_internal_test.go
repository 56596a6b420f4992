package agent

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// senderLog records what a sender did, in order.
type senderLog struct {
	mu  sync.Mutex
	ops []string
}

func (l *senderLog) add(op string) {
	l.mu.Lock()
	l.ops = append(l.ops, op)
	l.mu.Unlock()
}

func (l *senderLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ops...)
}

func newTestSender(l *senderLog) *sender {
	return newSender(func(_ context.Context, u acp.SessionUpdate) {
		l.add("write " + u.AgentMessageChunk.Content.Text.Text)
	}, func(_ context.Context, retry bool) {
		if retry {
			l.add("persist")
		}
	})
}

func senderText(s string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(s)}}
}

func TestSenderKeepsEachCallersOrder(t *testing.T) {
	t.Parallel()
	var l senderLog
	o := newTestSender(&l)
	const callers, each = 8, 200
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				u := senderText(fmt.Sprintf("%d:%d", c, i))
				if i%3 == 0 {
					o.send(u)
				} else {
					o.post(u)
				}
			}
		})
	}
	wg.Wait()
	o.close()
	next := make([]int, callers)
	ops := l.list()
	if len(ops) != callers*each {
		t.Fatalf("the sender wrote %d updates, want %d", len(ops), callers*each)
	}
	for _, op := range ops {
		var c, i int
		if _, err := fmt.Sscanf(op, "write %d:%d", &c, &i); err != nil {
			t.Fatalf("op %q: %v", op, err)
		}
		if i != next[c] {
			t.Fatalf("caller %d: wrote update %d, want %d (order lost)", c, i, next[c])
		}
		next[c]++
	}
}

func TestSenderSendWaitsForTheWrite(t *testing.T) {
	t.Parallel()
	var l senderLog
	o := newTestSender(&l)
	defer o.close()
	o.post(senderText("a"))
	o.post(senderText("b"))
	o.send(senderText("c"))
	if got := l.list(); fmt.Sprint(got) != "[write a write b write c]" {
		t.Errorf("after send returned, the sender had done %q; want a, b and c written", got)
	}
	o.post(senderText("d"))
	o.persist()
	o.post(senderText("e"))
	o.flush()
	if got := l.list(); fmt.Sprint(got) != "[write a write b write c write d persist write e]" {
		t.Errorf("ops = %q, want the persist after d and before e", got)
	}
}

func TestSenderCloseDrainsThenDrops(t *testing.T) {
	t.Parallel()
	var l senderLog
	o := newTestSender(&l)
	for i := range 50 {
		o.post(senderText(fmt.Sprint(i)))
	}
	o.close()
	if n := len(l.list()); n != 50 {
		t.Errorf("close wrote %d of the 50 queued updates", n)
	}
	if o.post(senderText("late")) {
		t.Error("post after close = true, want false")
	}
	o.send(senderText("late")) // must not block
	o.persist()
	if n := len(l.list()); n != 50 {
		t.Errorf("the sender did %d ops after close, want none", n-50)
	}
}
