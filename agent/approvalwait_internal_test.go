package agent

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
)

// TestApprovalContext: a client that waits for its user
// (_meta.hermes.waitForApprovals) gets permission requests without a
// deadline unless the user set approvals.timeout; any other client gets
// the default (or the configured) timeout.
func TestApprovalContext(t *testing.T) {
	waits := acp.Meta{"hermes": map[string]any{"waitForApprovals": true}}
	cases := []struct {
		name    string
		meta    acp.Meta
		timeout time.Duration
		want    time.Duration // 0: no deadline
	}{
		{"plain client, default", nil, 0, DefaultApprovalTimeout},
		{"plain client, approvals.timeout", nil, 5 * time.Second, 5 * time.Second},
		{"waiting client, default", waits, 0, 0},
		{"waiting client, approvals.timeout", waits, 5 * time.Second, 5 * time.Second},
		{"flag not true", acp.Meta{"hermes": map[string]any{"waitForApprovals": "yes"}}, 0, DefaultApprovalTimeout},
		{"hermes not an object", acp.Meta{"hermes": true}, 0, DefaultApprovalTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(Options{ApprovalTimeout: c.timeout})
			a.clientCaps = acp.ClientCapabilities{Meta: c.meta}
			s := &Session{a: a}
			turn, endTurn := context.WithCancel(context.Background())
			ctx, cancel, got := s.approvalContext(turn)
			defer cancel()
			if got != c.want {
				t.Errorf("timeout = %v, want %v", got, c.want)
			}
			if _, has := ctx.Deadline(); has != (c.want != 0) {
				t.Errorf("deadline set = %v, want %v", has, c.want != 0)
			}
			// The wait still ends with the turn.
			endTurn()
			if ctx.Err() == nil {
				t.Error("the request context outlived its turn")
			}
		})
	}
}
