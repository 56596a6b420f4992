package agent

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// A session's allowances, recorded from parallel tool calls: each key once,
// in the order first allowed, grants accumulated; a copy handed out does
// not change with later approvals.
func TestApprovalsFromParallelCalls(t *testing.T) {
	t.Parallel()
	var a sessionAllowances = &approvals{}
	a.allowKey("first")
	before := a.allowedKeys()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.allowKey(fmt.Sprintf("key %d", i%4))
			a.allowKey("first")
			if i%2 == 0 {
				a.grant(danger.Needs{Network: true})
			} else {
				a.grant(danger.Needs{Credentials: true})
			}
			_ = a.allowedKeys()
			_ = a.grants()
		}()
	}
	wg.Wait()
	keys := a.allowedKeys()
	if len(keys) != 5 || keys[0] != "first" {
		t.Errorf("keys = %q, want first and the four others once each", keys)
	}
	for i := range 4 {
		if !slices.Contains(keys, fmt.Sprintf("key %d", i)) {
			t.Errorf("keys = %q, lacks key %d", keys, i)
		}
	}
	if g := a.grants(); !g.Network || !g.Credentials {
		t.Errorf("grants = %+v, want both", g)
	}
	if !slices.Equal(before, []string{"first"}) {
		t.Errorf("an earlier copy changed: %q", before)
	}
}

// Announcements: the user sees each once; the model reads all of them at
// its next request, and they are then forgotten.
func TestAnnouncementsTake(t *testing.T) {
	t.Parallel()
	var n announcements
	n.add("shown at once", true)
	n.add("during a turn", false)
	show, notes := n.take(false)
	if !slices.Equal(show, []string{"during a turn"}) || notes != nil {
		t.Errorf("take(false) = %q, %q; want the unseen one to show, nothing for the model", show, notes)
	}
	n.add("later", false)
	show, notes = n.take(true)
	if !slices.Equal(show, []string{"later"}) || !slices.Equal(notes, []string{"shown at once", "during a turn", "later"}) {
		t.Errorf("take(true) = %q, %q; want later to show, all three for the model", show, notes)
	}
	if show, notes = n.take(true); show != nil || notes != nil {
		t.Errorf("after the model read them: %q, %q; want nothing", show, notes)
	}
}

// A running call's card is found without the session's lock (the output
// stream looks it up for every chunk of a command's output), and forgotten
// when the call ends.
func TestCallTrackersNeedNoSessionLock(t *testing.T) {
	t.Parallel()
	s := &Session{id: "s"}
	card := &toolCallTracker{s: s, id: "call_1"}
	s.calls.add(card)
	s.mu.Lock() // a turn holding the session's lock
	got := s.tracker("call_1")
	s.mu.Unlock()
	if got != card {
		t.Fatalf("tracker(call_1) = %v, want the running call's card", got)
	}
	s.dropTrackers([]model.ToolCall{{ID: "call_1"}})
	if got := s.tracker("call_1"); got != nil {
		t.Errorf("after the call ended, tracker(call_1) = %v, want nil", got)
	}
}
