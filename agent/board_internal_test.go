package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
)

// The delegation board holds its lock only to change a row and queue the
// new list: while the editor is slow to take one list (the write blocks),
// another child's change goes through, and the lists reach the editor in
// the order of the changes.
func TestBoardChangesDoNotWaitForTheEditor(t *testing.T) {
	t.Parallel()
	writing := make(chan struct{}, 1)
	unblock := make(chan struct{})
	var written []string
	s := &Session{id: "s"}
	s.out = newSender(func(_ context.Context, u acp.SessionUpdate) {
		if len(written) == 0 {
			writing <- struct{}{}
			<-unblock // an editor that does not read its input
		}
		written = append(written, u.ToolCallUpdate.Content[0].Content.Text.Text)
	}, func(context.Context, bool) {})
	defer s.out.close()
	b := newDelegateBoard(&toolCallTracker{s: s, id: "delegate"}, []delegateTask{{goal: "first goal"}, {goal: "second goal"}})

	first := make(chan struct{})
	go func() {
		b.set(0, func(r *boardRow) { r.state = "running" })
		close(first)
	}()
	<-writing
	changed := make(chan struct{})
	second := make(chan struct{})
	go func() {
		b.set(1, func(r *boardRow) { r.state = "running"; close(changed) })
		close(second)
	}()
	select {
	case <-changed:
	case <-time.After(30 * time.Second): // a deadlock detector, not a measurement
		close(unblock)
		t.Fatal("the second child's change waited for the editor to take the first list")
	}
	select {
	case <-first:
		t.Fatal("set returned before its list was written")
	default:
	}
	close(unblock)
	<-first
	<-second
	if len(written) != 2 || strings.Count(written[0], "⏳ running") != 1 || strings.Count(written[1], "⏳ running") != 2 {
		t.Errorf("lists written = %q, want the first change, then both", written)
	}
}
