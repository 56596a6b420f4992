package agent

import (
	"context"
	"sync"

	"github.com/hermes-acp/hermes-acp/acp"
)

// sender is a session's one ordered sender: it writes the session's updates
// to the editor in the order they were handed to it, on a goroutine of its
// own, and before each update it saves the messages the update follows
// (agent/persist.go), so the session's saves run on it too, one at a time.
// Nobody holds a lock while an update is written or a save runs; a caller
// that holds one (the output stream) posts without waiting, and the queue
// keeps the order.
//
// The session owns it: newSender starts its goroutine and close ends it,
// after writing everything queued before. Its methods are safe for
// concurrent use.
type sender struct {
	write func(ctx context.Context, u acp.SessionUpdate)
	save  func(ctx context.Context, retry bool)

	mu     sync.Mutex // guards queue and closed
	queue  []senderJob
	closed bool

	wake chan struct{} // 1-buffered: the queue grew or the sender closed
	done chan struct{} // closed when the goroutine has returned
}

// senderJob is one entry of the queue: an update to write (after a save of
// what it follows), or with update nil a save (retry: an explicit persist,
// tried even after a failed save) or just a barrier (flush).
type senderJob struct {
	update *acp.SessionUpdate
	save   bool
	done   chan struct{} // closed once the job ran; nil: nobody waits
}

// newSender starts the sender of a session: write writes one update, save
// saves the session's new messages (retry: also after a failure).
func newSender(write func(context.Context, acp.SessionUpdate), save func(ctx context.Context, retry bool)) *sender {
	o := &sender{write: write, save: save, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

// post queues u and returns at once; false once the sender is closed.
func (o *sender) post(u acp.SessionUpdate) bool {
	return o.enqueue(senderJob{update: &u})
}

// send queues u and waits until it is written (or the sender ended), so
// that what the caller does next — a request to the editor, the reply to
// a prompt — follows it.
func (o *sender) send(u acp.SessionUpdate) {
	o.wait(senderJob{update: &u, done: make(chan struct{})})
}

// persist saves the session's new messages after everything queued before
// it is written, and waits for the save.
func (o *sender) persist() {
	o.wait(senderJob{save: true, done: make(chan struct{})})
}

// flush waits until everything queued before it is written.
func (o *sender) flush() {
	o.wait(senderJob{done: make(chan struct{})})
}

func (o *sender) wait(j senderJob) {
	if !o.enqueue(j) {
		return
	}
	select {
	case <-j.done:
	case <-o.done:
	}
}

func (o *sender) enqueue(j senderJob) bool {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return false
	}
	o.queue = append(o.queue, j)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

// close writes what is queued, then ends the goroutine and waits for it.
// Later posts and sends are dropped.
func (o *sender) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.done
}

func (o *sender) run() {
	defer close(o.done)
	for {
		o.mu.Lock()
		jobs, closed := o.queue, o.closed
		o.queue = nil
		o.mu.Unlock()
		if len(jobs) == 0 {
			if closed {
				return
			}
			<-o.wake
			continue
		}
		for _, j := range jobs {
			o.do(j)
		}
	}
}

func (o *sender) do(j senderJob) {
	if j.done != nil {
		defer close(j.done)
	}
	ctx := context.Background() // a notification is written at once; a save is never abandoned halfway
	switch {
	case j.update != nil:
		o.save(ctx, false) // the messages it follows are saved first
		o.write(ctx, *j.update)
	case j.save:
		o.save(ctx, true)
	}
}
