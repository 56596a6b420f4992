package agent

import (
	"context"
	"time"
)

// waitForApprovalsKey is the client capability
// clientCapabilities._meta.hermes.waitForApprovals: an editor that keeps
// every permission request in front of its user until it is answered (the
// VS Code extension shows them as cards in its chat) and answers them
// cancelled when its turn is cancelled. Such an editor's requests are not
// bounded by the default approvals.timeout: only one the user set in the
// configuration file applies. The wait still ends with the turn (session/cancel) and with
// the connection.
const waitForApprovalsKey = "waitForApprovals"

// approvalContext returns the context a permission request of s waits
// under and its timeout (0: none).
func (s *Session) approvalContext(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	a := s.a
	a.mu.Lock()
	wait := hermesClientFlag(a.clientCaps.Meta, waitForApprovalsKey)
	a.mu.Unlock()
	if wait && !a.approvalTimeoutSet {
		c, cancel := context.WithCancel(ctx)
		return c, cancel, 0
	}
	c, cancel := context.WithTimeout(ctx, a.opts.ApprovalTimeout)
	return c, cancel, a.opts.ApprovalTimeout
}

// hermesClientFlag reports whether the client's capabilities _meta holds
// {"hermes": {key: true}}.
func hermesClientFlag(meta map[string]any, key string) bool {
	h, ok := meta["hermes"].(map[string]any)
	if !ok {
		return false
	}
	v, ok := h[key].(bool)
	return ok && v
}
