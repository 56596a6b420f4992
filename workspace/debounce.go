package workspace

import (
	"sync"
	"time"
)

// debouncer collects paths and delivers them in batches once no new path
// has arrived for delay, or at the latest maxWait after the first path of a
// batch, so that a steady stream of events cannot postpone delivery for
// ever. Each batch lists every path once, in the order it first arrived.
// Batches are delivered in order on the debouncer's own goroutine. Add never
// blocks. The creator must call close, which stops the goroutine and waits
// for it; a batch still pending is dropped.
type debouncer struct {
	delay   time.Duration
	maxWait time.Duration
	deliver func([]string)

	kick chan struct{} // capacity 1: "pending has grown"
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup

	mu      sync.Mutex // guards pending, seen
	pending []string
	seen    map[string]bool
}

func newDebouncer(delay, maxWait time.Duration, deliver func([]string)) *debouncer {
	if maxWait < delay {
		maxWait = delay
	}
	d := &debouncer{
		delay:   delay,
		maxWait: maxWait,
		deliver: deliver,
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		seen:    make(map[string]bool),
	}
	d.wg.Go(d.run)
	return d
}

// add queues paths for the next batch.
func (d *debouncer) add(paths ...string) {
	if len(paths) == 0 {
		return
	}
	d.mu.Lock()
	for _, p := range paths {
		if !d.seen[p] {
			d.seen[p] = true
			d.pending = append(d.pending, p)
		}
	}
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

func (d *debouncer) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	batch := d.pending
	d.pending = nil
	clear(d.seen)
	return batch
}

func (d *debouncer) run() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	armed := false
	var deadline time.Time // maxWait bound of the current batch
	for {
		select {
		case <-d.stop:
			return
		case <-d.kick:
			now := time.Now()
			if !armed {
				deadline = now.Add(d.maxWait)
				armed = true
			}
			wait := d.delay
			if until := deadline.Sub(now); until < wait {
				wait = until
			}
			timer.Reset(wait)
		case <-timer.C:
			armed = false
			if batch := d.take(); len(batch) > 0 {
				d.deliver(batch)
			}
		}
	}
}

// close stops the debouncer and waits for a delivery in progress.
func (d *debouncer) close() {
	d.once.Do(func() { close(d.stop) })
	d.wg.Wait()
}
