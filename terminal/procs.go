package terminal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Limits of a Table, hermes-agent's (tools/process_registry.py).
const (
	// DefaultBufferChars is the rolling output kept per process.
	DefaultBufferChars = 200_000
	// DefaultMaxProcesses is how many processes a table tracks.
	DefaultMaxProcesses = 64
	// DefaultKeepFinished is how long a finished process stays listed.
	DefaultKeepFinished = 30 * time.Minute
	// minPrefix is the shortest id prefix (after "proc_") Get resolves.
	minPrefix = 4
)

// ErrTooMany is Start's error when the table is full of running
// processes.
var ErrTooMany = errors.New("too many background processes")

// TableOptions configures a Table. The zero value is hermes's limits.
type TableOptions struct {
	BufferChars  int           // rolling output per process (0: DefaultBufferChars)
	MaxProcesses int           // processes tracked (0: DefaultMaxProcesses)
	KeepFinished time.Duration // how long finished ones stay (0: DefaultKeepFinished)
	// OnExit is called (from the process's own goroutine) when a process
	// ends by itself, not by Kill or Close.
	OnExit func(Snapshot)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Table is one session's background processes: started with Start, found
// by id, killed all at once by Close. It is safe for concurrent use.
type Table struct {
	opts TableOptions

	mu     sync.Mutex // guards procs, closed
	procs  []*Background
	closed bool
	wg     sync.WaitGroup // the processes' reader goroutines
}

// NewTable returns an empty table.
func NewTable(o TableOptions) *Table {
	if o.BufferChars <= 0 {
		o.BufferChars = DefaultBufferChars
	}
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = DefaultMaxProcesses
	}
	if o.KeepFinished <= 0 {
		o.KeepFinished = DefaultKeepFinished
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Table{opts: o}
}

// Background is a process of a Table. Its methods are safe for concurrent
// use.
type Background struct {
	ID      string
	Command string
	PID     int
	Started time.Time
	// Notify is the terminal call's notify_on_complete.
	Notify bool

	t    *Table
	p    Process
	done chan struct{} // closed once it has exited and its output ended

	mu     sync.Mutex // guards out, ended, exit, killed
	out    *tailBuffer
	ended  time.Time
	exit   Exit
	killed bool
}

// Snapshot is the state of a Background at one moment.
type Snapshot struct {
	ID, Command string
	PID         int
	Started     time.Time
	Running     bool
	Exit        Exit      // when not Running
	Ended       time.Time // when not Running
	Killed      bool      // ended by Kill or Close
	Notify      bool
	// Output is the rolling output (raw: not stripped, not redacted).
	Output string
}

// Start starts s in env as a background process of the table. It fails
// with ErrTooMany when MaxProcesses are running (finished ones are
// forgotten, oldest first, to make room).
func (t *Table) Start(ctx context.Context, env Environment, s Spec, notify bool) (*Background, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, errors.New("the session is closed")
	}
	t.pruneLocked()
	if len(t.procs) >= t.opts.MaxProcesses {
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: %d are running, the most a session may track; "+
			"kill or wait for one (process action 'list' shows them) before starting another", ErrTooMany, t.opts.MaxProcesses)
	}
	// Reserve the slot before starting, so concurrent starts cannot pass
	// the limit.
	b := &Background{Command: s.Command, Notify: notify, t: t, done: make(chan struct{}), out: newTailBuffer(t.opts.BufferChars)}
	b.ID = t.newIDLocked()
	t.procs = append(t.procs, b)
	t.mu.Unlock()

	p, err := env.Start(ctx, s)
	if err != nil {
		t.remove(b)
		return nil, err
	}
	t.mu.Lock()
	if t.closed {
		// Closed while starting: the process must not outlive the table.
		t.mu.Unlock()
		t.remove(b)
		p.Kill()
		_, _ = io.Copy(io.Discard, p.Output())
		p.Wait()
		return nil, errors.New("the session is closed")
	}
	b.p, b.PID, b.Started = p, p.PID(), t.opts.Now()
	t.wg.Add(1)
	t.mu.Unlock()
	go b.run()
	return b, nil
}

func (t *Table) remove(b *Background) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.procs = slices.DeleteFunc(t.procs, func(x *Background) bool { return x == b })
}

// newIDLocked returns an unused id: "proc_" and 12 hex digits.
func (t *Table) newIDLocked() string {
	for {
		var b [6]byte
		_, _ = rand.Read(b[:])
		id := "proc_" + hex.EncodeToString(b[:])
		if !slices.ContainsFunc(t.procs, func(x *Background) bool { return x.ID == id }) {
			return id
		}
	}
}

// pruneLocked forgets finished processes older than KeepFinished, then
// the oldest finished ones while the table is full.
func (t *Table) pruneLocked() {
	now := t.opts.Now()
	t.procs = slices.DeleteFunc(t.procs, func(b *Background) bool {
		s, ok := b.endedAt()
		return ok && now.Sub(s) > t.opts.KeepFinished
	})
	for len(t.procs) >= t.opts.MaxProcesses {
		oldest := -1
		for i, b := range t.procs {
			if _, ok := b.endedAt(); ok && (oldest < 0 || b.Started.Before(t.procs[oldest].Started)) {
				oldest = i
			}
		}
		if oldest < 0 {
			return
		}
		t.procs = slices.Delete(t.procs, oldest, oldest+1)
	}
}

// Get returns the process with id, or with a unique id prefix of at least
// four hex digits ("proc_4dae" or "4dae"); nil when none or ambiguous.
func (t *Table) Get(id string) *Background {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range t.procs {
		if b.ID == id && b.p != nil {
			return b
		}
	}
	if !strings.HasPrefix(id, "proc_") {
		id = "proc_" + id
	}
	if len(id)-len("proc_") < minPrefix {
		return nil
	}
	var found *Background
	for _, b := range t.procs {
		if b.p != nil && strings.HasPrefix(b.ID, id) {
			if found != nil {
				return nil
			}
			found = b
		}
	}
	return found
}

// List returns every tracked process, oldest first.
func (t *Table) List() []Snapshot {
	t.mu.Lock()
	t.pruneLocked()
	procs := slices.DeleteFunc(slices.Clone(t.procs), func(b *Background) bool { return b.p == nil })
	t.mu.Unlock()
	out := make([]Snapshot, 0, len(procs))
	for _, b := range procs {
		out = append(out, b.Snapshot())
	}
	return out
}

// Running returns the number of processes still running.
func (t *Table) Running() int {
	n := 0
	for _, s := range t.List() {
		if s.Running {
			n++
		}
	}
	return n
}

// Close kills every process of the table (their whole process groups),
// waits for them, and refuses new ones. It is safe to call more than once.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	procs := slices.DeleteFunc(slices.Clone(t.procs), func(b *Background) bool { return b.p == nil })
	t.mu.Unlock()
	for _, b := range procs {
		b.kill()
	}
	t.wg.Wait()
}

// run reads the output to its end and records the exit.
func (b *Background) run() {
	defer b.t.wg.Done()
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		buf := make([]byte, 32<<10)
		r := b.p.Output()
		for {
			n, err := r.Read(buf)
			if n > 0 {
				b.mu.Lock()
				b.out.Write(buf[:n])
				b.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	exit := b.p.Wait()
	<-outDone
	b.mu.Lock()
	b.exit, b.ended = exit, b.t.opts.Now()
	killed := b.killed
	b.mu.Unlock()
	if !killed && b.t.opts.OnExit != nil {
		b.t.opts.OnExit(b.Snapshot()) // before done: a wait sees it announced
	}
	close(b.done)
}

// endedAt returns when the process ended, and whether it has.
func (b *Background) endedAt() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ended, !b.ended.IsZero()
}

// Snapshot returns the process's state now.
func (b *Background) Snapshot() Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Snapshot{
		ID: b.ID, Command: b.Command, PID: b.PID, Started: b.Started, Notify: b.Notify,
		Running: b.ended.IsZero(), Exit: b.exit, Ended: b.ended, Killed: b.killed,
		Output: b.out.String(),
	}
}

// Done is closed when the process has ended and its output is complete.
func (b *Background) Done() <-chan struct{} { return b.done }

// Wait waits until the process ends, ctx ends or timeout passes; it
// reports whether the process ended.
func (b *Background) Wait(ctx context.Context, timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-b.done:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// Kill ends the process and everything it started, and waits for it. It
// reports false when the process had already ended.
func (b *Background) Kill() bool {
	if !b.kill() {
		return false
	}
	<-b.done
	return true
}

// kill starts killing the process; false when it had already ended.
func (b *Background) kill() bool {
	b.mu.Lock()
	if !b.ended.IsZero() {
		b.mu.Unlock()
		return false
	}
	b.killed = true
	b.mu.Unlock()
	b.p.Kill()
	return true
}

// Write writes data to the process's standard input.
func (b *Background) Write(data []byte) (int, error) { return b.p.Write(data) }

// CloseStdin closes the process's standard input (EOF).
func (b *Background) CloseStdin() error { return b.p.CloseStdin() }
