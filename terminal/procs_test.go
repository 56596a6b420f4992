package terminal

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeEnv starts fake processes that run until killed or finished.
type fakeEnv struct {
	mu    sync.Mutex
	procs []*fakeProc
}

type fakeProc struct {
	pid  int
	r    *io.PipeReader
	w    *io.PipeWriter
	once sync.Once
	done chan struct{}
	exit Exit
}

func (e *fakeEnv) Start(_ context.Context, s Spec) (Process, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, w := io.Pipe()
	p := &fakeProc{pid: 1000 + len(e.procs), r: r, w: w, done: make(chan struct{})}
	e.procs = append(e.procs, p)
	return p, nil
}

func (p *fakeProc) finish(code int, out string) {
	p.once.Do(func() {
		p.w.Write([]byte(out))
		p.w.Close()
		p.exit = Exit{Code: code}
		close(p.done)
	})
}

func (p *fakeProc) PID() int                    { return p.pid }
func (p *fakeProc) Output() io.Reader           { return p.r }
func (p *fakeProc) Write(b []byte) (int, error) { return len(b), nil }
func (p *fakeProc) CloseStdin() error           { return nil }
func (p *fakeProc) Kill()                       { go p.finish(143, "") }
func (p *fakeProc) Wait() Exit                  { <-p.done; return p.exit }

// TestTableLimit: 64 running processes fill the table; the 65th is
// refused; once one has finished it is forgotten to make room.
func TestTableLimit(t *testing.T) {
	t.Parallel()
	env := &fakeEnv{}
	var announced []Snapshot
	var mu sync.Mutex
	tab := NewTable(TableOptions{OnExit: func(s Snapshot) {
		mu.Lock()
		announced = append(announced, s)
		mu.Unlock()
	}})
	defer tab.Close()
	var first *Background
	for i := range DefaultMaxProcesses {
		b, err := tab.Start(t.Context(), env, Spec{Command: "sleep"}, false)
		if err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		if i == 0 {
			first = b
		}
	}
	_, err := tab.Start(t.Context(), env, Spec{Command: "one too many"}, false)
	if !errors.Is(err, ErrTooMany) || !strings.Contains(err.Error(), "64 are running") {
		t.Fatalf("65th start = %v, want ErrTooMany naming the limit", err)
	}
	env.procs[0].finish(0, "bye\n")
	<-first.Done()
	mu.Lock()
	if len(announced) != 1 || announced[0].ID != first.ID || announced[0].Output != "bye\n" || announced[0].Exit.Code != 0 {
		t.Errorf("announced = %+v, want the finished process with its output", announced)
	}
	mu.Unlock()
	b, err := tab.Start(t.Context(), env, Spec{Command: "now fits"}, false)
	if err != nil {
		t.Fatalf("start after one finished: %v", err)
	}
	if tab.Get(first.ID) != nil {
		t.Error("the finished process is still tracked although the table was full")
	}
	if got := len(tab.List()); got != DefaultMaxProcesses {
		t.Errorf("List has %d processes, want %d", got, DefaultMaxProcesses)
	}
	// Killed processes are not announced.
	if !b.Kill() {
		t.Error("Kill of a running process = false")
	}
	mu.Lock()
	if len(announced) != 1 {
		t.Errorf("a killed process was announced: %+v", announced[1:])
	}
	mu.Unlock()
	tab.Close()
	if n := tab.Running(); n != 0 {
		t.Errorf("%d processes running after Close", n)
	}
	if _, err := tab.Start(t.Context(), env, Spec{Command: "late"}, false); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestTableFinishedExpire(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	env := &fakeEnv{}
	tab := NewTable(TableOptions{Now: clock})
	defer tab.Close()
	b, _ := tab.Start(t.Context(), env, Spec{Command: "quick"}, false)
	env.procs[0].finish(0, "")
	<-b.Done()
	mu.Lock()
	now = now.Add(29 * time.Minute)
	mu.Unlock()
	if len(tab.List()) != 1 {
		t.Fatal("a finished process was forgotten before 30 minutes")
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if len(tab.List()) != 0 {
		t.Error("a finished process is still listed after 31 minutes")
	}
}

func TestTableGetByPrefix(t *testing.T) {
	t.Parallel()
	env := &fakeEnv{}
	tab := NewTable(TableOptions{})
	defer tab.Close()
	b, _ := tab.Start(t.Context(), env, Spec{Command: "x"}, false)
	if !strings.HasPrefix(b.ID, "proc_") || len(b.ID) != len("proc_")+12 {
		t.Fatalf("id = %q, want proc_ and 12 hex digits", b.ID)
	}
	for _, q := range []string{b.ID, b.ID[:9], b.ID[5:9], " " + b.ID + " "} {
		if tab.Get(q) != b {
			t.Errorf("Get(%q) did not find %s", q, b.ID)
		}
	}
	for _, q := range []string{"", "proc_", b.ID[5:8], "proc_zzzz"} {
		if tab.Get(q) != nil {
			t.Errorf("Get(%q) found a process, want none", q)
		}
	}
}
