package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
)

// execute_code on a terminal backend (issue 24): the script runs where
// commands run — in the session's Docker container, on the SSH host — as a
// command of the backend (its workspace copy synced around it, killed
// whole at the timeout or on cancel). Its tool calls reach the agent
// through a relay (execute_code_relay.py) that the backend runs beside it
// as a helper: the relay makes the script's private folder there, listens
// on the tool socket in it, and passes each call and answer over its own
// stdin and stdout, on the backend's existing connection (the Docker API's
// exec attach, the SSH session). Nothing listens on this machine, no port
// is opened anywhere, and the same relay works for every backend.

//go:embed execute_code_relay.py
var relaySource string

// helperStarter is a TerminalBackend that can run execute_code scripts:
// besides commands, it starts helpers — commands that copy nothing of the
// workspace there or back — in the same place (terminal/docker and
// terminal/ssh have it).
type helperStarter interface {
	StartHelper(ctx context.Context, s terminal.Spec) (terminal.Process, error)
}

// noPython is what the relay's command prints when the backend has no
// python3.
const noPython = "HERMES-ACP-NO-PYTHON3"

// relayEndWait bounds the relay's goodbye (the script's stderr, its folder
// removed) after the script ended.
const relayEndWait = 15 * time.Second

// runRemoteScript runs job on backend: the relay first (its folder ready),
// then the script, then the relay's stderr and cleanup.
func runRemoteScript(ctx context.Context, s executeCodeDeps, backend TerminalBackend, job scriptJob) (scriptRun, error) {
	cfg := s.CodeExecution()
	sb, ok := backend.(helperStarter)
	if !ok {
		return scriptRun{}, fmt.Errorf("execute_code cannot run on %s: the backend runs no helper for the script's tool calls", backend.Describe())
	}
	calls := &rpcCalls{token: job.token, parent: job.parent, allowed: job.tools, max: cfg.maxToolCalls(), callTool: s.CallTool()}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	calls.ctx = cctx
	cmd := "command -v python3 >/dev/null 2>&1 || { echo " + noPython + "; exit 127; }; exec python3 -u -c " + shellQuote(relaySource) + " 2>/dev/null"
	p, err := sb.StartHelper(ctx, terminal.Spec{Command: cmd, Dir: s.Workspace().Cwd(), Stdin: true})
	if err != nil {
		return scriptRun{}, fmt.Errorf("could not start the script's relay in %s: %w", backend.Describe(), err)
	}
	r := newRelay(p, calls)
	defer r.stop()
	files, _ := json.Marshal(map[string]any{"files": scriptFiles(job)})
	if err := r.send(string(files)); err != nil {
		// A relay that ended at once (no python3 there) closed its stdin
		// first: say why it ended rather than that it could not be reached.
		select {
		case <-r.donec:
			return scriptRun{}, fmt.Errorf("%s: %w", backend.Describe(), r.why())
		case <-time.After(relayEndWait):
		}
		return scriptRun{}, fmt.Errorf("could not reach the script's relay in %s: %w", backend.Describe(), err)
	}
	dir, err := r.ready(ctx)
	if err != nil {
		return scriptRun{calls: calls.made()}, fmt.Errorf("%s: %w", backend.Describe(), err)
	}

	// The script: the workspace's .venv python in project mode, else
	// python3, with the module's folder first on its path.
	var c strings.Builder
	if cfg.Mode == "strict" {
		fmt.Fprintf(&c, "cd %s || exit 126\n", shellQuote(dir))
	}
	fmt.Fprintf(&c, "export HERMES_RPC_SOCKET=%s PYTHONPATH=%s\"${PYTHONPATH:+:$PYTHONPATH}\" PYTHONDONTWRITEBYTECODE=1 PYTHONIOENCODING=utf-8 PYTHONUTF8=1\n",
		shellQuote(dir+"/rpc.sock"), shellQuote(dir))
	c.WriteString("p=python3\n")
	if cfg.Mode != "strict" {
		c.WriteString("for v in .venv/bin/python venv/bin/python; do if [ -x \"$v\" ]; then p=$v; break; fi; done\n")
	}
	fmt.Fprintf(&c, "exec \"$p\" %s 2>%s\n", shellQuote(dir+"/script.py"), shellQuote(dir+"/stderr.txt"))
	res, err := terminal.Run(ctx, scriptEnv{backend, r.root}, terminal.Spec{Command: c.String(), Dir: s.Workspace().Cwd()},
		terminal.RunOptions{Timeout: job.timeout, MaxChars: maxCodeStdoutChars})
	cancel() // ends the calls still running
	run := scriptRun{res: res}
	stderr, truncated, endErr := r.end()
	run.calls = calls.made()
	if err != nil {
		return run, fmt.Errorf("could not start python in %s: %w", backend.Describe(), err)
	}
	if endErr == nil {
		run.stderr = terminal.Truncate(stderr, maxCodeStderrChars)
		run.stderrTruncated = truncated || run.stderr != stderr
	}
	return run, nil
}

// relay is the agent's side of a running relay: it answers the calls the
// relay passes on, and tells it the script's process and its end.
type relay struct {
	p     terminal.Process
	calls *rpcCalls

	wmu sync.Mutex // one line at a time on the relay's stdin

	readyc  chan string      // the folder, once
	stderrc chan relayStderr // the script's stderr, once
	donec   chan struct{}    // the relay's output ended
	mu      sync.Mutex       // guards fail, other, said
	fail    string           // why the relay failed, as it said
	other   []string         // lines it printed that are not the protocol
	said    bool             // it sent the script's stderr: it is ending by itself
	wg      sync.WaitGroup   // the calls being answered
}

type relayStderr struct {
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

func newRelay(p terminal.Process, calls *rpcCalls) *relay {
	r := &relay{p: p, calls: calls, readyc: make(chan string, 1), stderrc: make(chan relayStderr, 1), donec: make(chan struct{})}
	go r.read()
	return r
}

// send writes one line to the relay.
func (r *relay) send(line string) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	_, err := r.p.Write([]byte(line + "\n"))
	return err
}

// read reads the relay's lines until its output ends.
func (r *relay) read() {
	defer close(r.donec)
	br := bufio.NewReaderSize(r.p.Output(), 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			r.line(bytes.TrimRight(line, "\r\n"))
		}
		if err != nil {
			_, _ = io.Copy(io.Discard, br)
			return
		}
	}
}

// line handles one line of the relay.
func (r *relay) line(line []byte) {
	kind, rest, _ := bytes.Cut(line, []byte{' '})
	switch string(kind) {
	case "R":
		var dir string
		if json.Unmarshal(rest, &dir) == nil {
			r.readyc <- dir
		}
	case "C":
		id, req, ok := bytes.Cut(rest, []byte{' '})
		if !ok {
			return
		}
		req = bytes.Clone(req)
		conn := string(id)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			_ = r.send("A " + conn + " " + strings.TrimSuffix(string(r.calls.answerLine(req)), "\n"))
		}()
	case "S":
		var st relayStderr
		if json.Unmarshal(rest, &st) == nil {
			r.mu.Lock()
			r.said = true
			r.mu.Unlock()
			r.stderrc <- st
		}
	case "X":
	case "F":
		var why string
		_ = json.Unmarshal(rest, &why)
		r.mu.Lock()
		r.fail = why
		r.mu.Unlock()
	default:
		r.mu.Lock()
		if len(r.other) < 20 {
			r.other = append(r.other, string(line))
		}
		r.mu.Unlock()
	}
}

// why says why the relay ended without doing its part.
func (r *relay) why() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != "" {
		return fmt.Errorf("the script's relay failed: %s", r.fail)
	}
	for _, l := range r.other {
		if strings.Contains(l, noPython) {
			return errors.New("Python 3 is not available there (python3 not found on its PATH): install python3 in the image or on the host to use execute_code, or use the other tools directly")
		}
	}
	msg := strings.TrimSpace(strings.Join(r.other, "\n"))
	if msg == "" {
		msg = "it ended without a word"
	}
	return fmt.Errorf("the script's relay did not start: %s", msg)
}

// ready waits for the relay's folder.
func (r *relay) ready(ctx context.Context) (string, error) {
	select {
	case dir := <-r.readyc:
		return dir, nil
	case <-r.donec:
		select {
		case dir := <-r.readyc:
			return dir, nil
		default:
		}
		return "", r.why()
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// root tells the relay the script's process (pid 0: none to check
// against, as in a container, which is the session's alone).
func (r *relay) root(pid int) {
	if pid > 0 {
		_ = r.send("P " + strconv.Itoa(pid))
	} else {
		_ = r.send("N")
	}
}

// end tells the relay the script ended and returns the script's stderr.
func (r *relay) end() (string, bool, error) {
	if err := r.send("E"); err != nil {
		return "", false, err
	}
	t := time.NewTimer(relayEndWait)
	defer t.Stop()
	select {
	case st := <-r.stderrc:
		return st.Text, st.Truncated, nil
	case <-r.donec:
		select {
		case st := <-r.stderrc:
			return st.Text, st.Truncated, nil
		default:
		}
		return "", false, r.why()
	case <-t.C:
		return "", false, errors.New("the script's relay did not answer")
	}
}

// stop ends the relay (after its goodbye, or at once) and waits for it
// and for the calls it passed on.
func (r *relay) stop() {
	r.mu.Lock()
	said := r.said
	r.mu.Unlock()
	if said {
		select {
		case <-r.donec:
		case <-time.After(relayEndWait):
		}
	}
	r.p.Kill()
	r.p.Wait()
	<-r.donec
	r.wg.Wait()
}
