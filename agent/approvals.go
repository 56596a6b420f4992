package agent

import (
	"slices"
	"sync"

	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// sessionAllowances is what the command and script approvals (agent/shell.go,
// agent/scriptapproval.go, agent/grants.go) need to remember for the rest of
// a session: the danger keys and the sandbox grants the user allowed.
type sessionAllowances interface {
	allowedKeys() []string
	allowKey(key string)
	grants() danger.Needs
	grant(n danger.Needs)
}

// approvals is a session's allowances. It has its own lock: recording an
// approval never waits for the session's, nor the session for it. Its
// methods are safe for concurrent use.
type approvals struct {
	mu      sync.Mutex   // guards the fields below
	keys    []string     // danger keys allowed for the session, in the order allowed
	granted danger.Needs // sandbox grants allowed for the session
}

var _ sessionAllowances = (*approvals)(nil)

// allowedKeys returns the danger keys allowed so far (a copy).
func (a *approvals) allowedKeys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.keys)
}

// allowKey allows the danger key for the rest of the session (each danger
// on its own: a later command with another danger still asks).
func (a *approvals) allowKey(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.keys, key) {
		a.keys = append(a.keys, key)
	}
}

// grants returns the sandbox grants allowed so far.
func (a *approvals) grants() danger.Needs {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.granted
}

// grant allows the sandbox grants n for the rest of the session.
func (a *approvals) grant(n danger.Needs) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.granted = a.granted.Or(n)
}
