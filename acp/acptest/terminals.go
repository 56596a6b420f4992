package acptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/hermes-acp/hermes-acp/acp"
)

// The fake editor's terminals (when Capabilities.Terminal is set) run real
// processes, each in its own process group, as an editor's terminal does:
// terminal/create starts the command, output keeps the last
// outputByteLimit bytes, kill ends the group, release kills it and forgets
// the terminal.

// TerminalCall is a terminal/* request the agent sent.
type TerminalCall struct {
	Method     string
	TerminalID string
	Create     *acp.CreateTerminalRequest // for terminal/create
}

type fakeTerminal struct {
	cmd   *exec.Cmd
	limit int
	done  chan struct{} // closed when the command has exited

	mu        sync.Mutex
	out       []byte
	truncated bool
	status    *acp.TerminalExitStatus
	released  bool
}

func (t *fakeTerminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, p...)
	if t.limit > 0 && len(t.out) > t.limit {
		t.out = append(t.out[:0], t.out[len(t.out)-t.limit:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *fakeTerminal) kill() {
	if t.cmd.Process != nil {
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// TerminalCalls returns the terminal/* requests received, in order.
func (e *Editor) TerminalCalls() []TerminalCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]TerminalCall(nil), e.termCalls...)
}

// LiveTerminals returns the ids of terminals created and not released.
func (e *Editor) LiveTerminals() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for id, t := range e.terms {
		t.mu.Lock()
		if !t.released {
			out = append(out, id)
		}
		t.mu.Unlock()
	}
	return out
}

// handleTerminal serves terminal/*; ok is false for other methods.
func (e *Editor) handleTerminal(ctx context.Context, method string, params json.RawMessage) (res any, err error, ok bool) {
	switch method {
	case "terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
	default:
		return nil, nil, false
	}
	if !e.opts.Capabilities.Terminal {
		return nil, acp.MethodNotFound(method), true
	}
	if method == "terminal/create" {
		var req acp.CreateTerminalRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, acp.InvalidParams("%v", err), true
		}
		res, err := e.createTerminal(&req)
		return res, err, true
	}
	var req acp.TerminalRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, acp.InvalidParams("%v", err), true
	}
	e.record(func() { e.termCalls = append(e.termCalls, TerminalCall{Method: method, TerminalID: req.TerminalID}) })
	e.mu.Lock()
	t := e.terms[req.TerminalID]
	e.mu.Unlock()
	if t == nil {
		return nil, &acp.Error{Code: acp.CodeResourceNotFound, Message: "Resource not found: terminal " + req.TerminalID}, true
	}
	switch method {
	case "terminal/output":
		t.mu.Lock()
		defer t.mu.Unlock()
		return &acp.TerminalOutputResponse{Output: string(t.out), Truncated: t.truncated, ExitStatus: t.status}, nil, true
	case "terminal/wait_for_exit":
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err(), true
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.status, nil, true
	case "terminal/kill":
		t.kill()
		return &acp.Empty{}, nil, true
	default: // terminal/release
		t.kill()
		<-t.done
		t.mu.Lock()
		t.released = true
		t.mu.Unlock()
		return &acp.Empty{}, nil, true
	}
}

func (e *Editor) createTerminal(req *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	cmd := exec.Command(req.Command, req.Args...)
	if req.Cwd != nil {
		cmd.Dir = *req.Cwd
	}
	cmd.Env = os.Environ()
	for _, v := range req.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := &fakeTerminal{cmd: cmd, done: make(chan struct{})}
	if req.OutputByteLimit != nil {
		t.limit = int(*req.OutputByteLimit)
	}
	cmd.Stdout, cmd.Stderr = t, t
	if err := cmd.Start(); err != nil {
		return nil, &acp.Error{Code: acp.CodeInternalError, Message: fmt.Sprintf("start %s: %v", req.Command, err)}
	}
	go func() {
		err := cmd.Wait()
		st := &acp.TerminalExitStatus{}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal().String()
			st.Signal = &sig
		} else if code := cmd.ProcessState.ExitCode(); code >= 0 {
			c := uint32(code)
			st.ExitCode = &c
		}
		_ = err
		t.mu.Lock()
		t.status = st
		t.mu.Unlock()
		close(t.done)
	}()
	e.mu.Lock()
	if e.terms == nil {
		e.terms = map[string]*fakeTerminal{}
	}
	id := "term-" + strconv.Itoa(len(e.terms)+1)
	e.terms[id] = t
	e.mu.Unlock()
	e.record(func() {
		e.termCalls = append(e.termCalls, TerminalCall{Method: "terminal/create", TerminalID: id, Create: req})
	})
	return &acp.CreateTerminalResponse{TerminalID: id}, nil
}

// closeTerminals kills every terminal's command (the editor went away).
func (e *Editor) closeTerminals() {
	e.mu.Lock()
	terms := e.terms
	e.mu.Unlock()
	for _, t := range terms {
		t.kill()
	}
}
