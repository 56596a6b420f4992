package registry

import (
	"errors"
	"fmt"
)

// Check is a tool's availability check. Entries whose availability is one
// fact share one *Check (the browser tools share the browser lookup): the
// registry runs each *Check at most once per [Registry.Definitions] or
// [Registry.Status] pass, as hermes memoises check_fn per pass, telling
// checks apart by pointer.
type Check struct{ run func() error }

// NewCheck returns the check that calls f: a nil error means the tool is
// available; an error (or a panic) makes it unavailable with that reason.
func NewCheck(f func() error) *Check { return &Check{run: f} }

// Unavailable returns a check that always fails with reason.
func Unavailable(reason string) *Check {
	err := errors.New(reason)
	return NewCheck(func() error { return err })
}

// Err runs the check: nil when the tool is available, else why not. A nil
// *Check is always available.
func (c *Check) Err() error {
	if c == nil || c.run == nil {
		return nil
	}
	if reason := runCheck(c.run); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// runCheck calls check and turns an error or a panic into a reason.
func runCheck(check func() error) (reason string) {
	defer func() {
		if p := recover(); p != nil {
			reason = fmt.Sprintf("check panicked: %v", p)
		}
	}()
	if err := check(); err != nil {
		if msg := err.Error(); msg != "" {
			return msg
		}
		return "check failed"
	}
	return ""
}

// checkMemo runs each distinct *Check once. The zero value is ready to use.
type checkMemo struct {
	results map[*Check]string
}

// reason returns why e is unavailable, or "" when it is available.
func (m *checkMemo) reason(e *Entry) string {
	if reason := missingEnv(e.RequiresEnv); reason != "" {
		return reason
	}
	if e.Check == nil || e.Check.run == nil {
		return ""
	}
	if r, ok := m.results[e.Check]; ok {
		return r
	}
	r := runCheck(e.Check.run)
	if m.results == nil {
		m.results = make(map[*Check]string)
	}
	m.results[e.Check] = r
	return r
}
