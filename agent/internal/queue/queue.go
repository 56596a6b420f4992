// Package queue orders the prompts of one session: one turn runs at a time,
// the prompts sent meanwhile wait in arrival order, a waiting prompt that is
// cancelled leaves its place, and closing the session drops the waiting
// ones and lets the caller await the running turn.
package queue

import (
	"errors"
	"slices"
	"sync"
)

// ErrClosed is returned by [Queue.Enqueue] after [Queue.Close].
var ErrClosed = errors.New("queue closed")

// Queue is a session's prompt queue; the zero value is an empty, open
// queue. It is safe for concurrent use, and calls nothing while it holds
// its lock, so callers may call it with a lock of their own held.
type Queue struct {
	mu       sync.Mutex // guards the fields below
	running  bool
	waiting  []*Ticket
	closed   bool
	turnDone chan struct{} // closed when the running turn ends; nil when idle
}

// Ticket is a prompt's place in the queue.
type Ticket struct {
	ready   chan struct{} // closed when the prompt may run
	granted bool          // guarded by Queue.mu
}

// Ready is closed when the ticket's prompt may run; the caller then owns
// the turn and must call [Queue.Finish].
func (t *Ticket) Ready() <-chan struct{} { return t.ready }

// Enqueue takes a place and reports how many prompts are ahead (0: the
// ticket is granted at once, and its turn runs now).
func (q *Queue) Enqueue() (*Ticket, int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil, 0, ErrClosed
	}
	t := &Ticket{ready: make(chan struct{})}
	if !q.running {
		q.grant(t)
		return t, 0, nil
	}
	q.waiting = append(q.waiting, t)
	return t, len(q.waiting), nil
}

// grant makes t the running turn.
func (q *Queue) grant(t *Ticket) {
	q.running = true
	t.granted = true
	q.turnDone = make(chan struct{})
	close(t.ready)
}

// Leave gives up a ticket whose prompt was cancelled; it reports whether
// the ticket had already been granted (then the caller owns the turn and
// must call Finish).
func (q *Queue) Leave(t *Ticket) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t.granted {
		return true
	}
	q.waiting = slices.DeleteFunc(q.waiting, func(x *Ticket) bool { return x == t })
	return false
}

// Finish ends the running turn and grants the next waiting ticket, if any
// and the queue is open.
func (q *Queue) Finish() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.turnDone != nil {
		close(q.turnDone)
		q.turnDone = nil
	}
	if len(q.waiting) > 0 && !q.closed {
		next := q.waiting[0]
		q.waiting = q.waiting[1:]
		q.grant(next)
		return
	}
	q.running = false
}

// Running reports whether a turn runs.
func (q *Queue) Running() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running
}

// Close closes the queue: later Enqueues fail and no waiting ticket is
// granted any more. It returns a channel closed when the running turn
// finishes (nil when none runs), and whether the queue was already closed.
func (q *Queue) Close() (turnDone <-chan struct{}, already bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil, true
	}
	q.closed = true
	return q.turnDone, false
}
