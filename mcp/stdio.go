package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"syscall"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessage caps one message from a stdio MCP server, as the SDK's own
// stdio transport does (mcpsdk.DefaultMaxLineLength, 16 MiB). The SDK ends the
// whole connection on a longer message; [frameGuard] instead replaces it by
// an error answer to the call it belonged to, so the server stays usable.
const maxMessage = mcpsdk.DefaultMaxLineLength

// stdioTransport runs an MCP server as a child process (started by a
// [spawner], so it dies with the agent) and talks to it over its stdin and
// stdout, with messages over maxMessage refused rather than fatal.
type stdioTransport struct {
	cmd   *exec.Cmd
	spawn *spawner
	grace time.Duration // before SIGTERM, and again before SIGKILL, on close
	max   int
	log   *slog.Logger
}

// Connect implements [mcpsdk.Transport].
func (t *stdioTransport) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.spawn.start(t.cmd); err != nil {
		return nil, err
	}
	r := &frameGuard{r: bufio.NewReaderSize(stdout, 64<<10), max: t.max, log: t.log}
	w := &childInput{WriteCloser: stdin, cmd: t.cmd, grace: t.grace}
	// The SDK's own cap sits above ours: every line it sees is at most max.
	return (&mcpsdk.IOTransport{Reader: io.NopCloser(r), Writer: w, MaxLineLength: t.max + 1<<10}).Connect(ctx)
}

// childInput is the server's stdin. Closing it ends the connection as the
// MCP specification asks: close the input, wait for the exit, then SIGTERM
// and at last SIGKILL.
type childInput struct {
	io.WriteCloser
	cmd   *exec.Cmd
	grace time.Duration
}

func (c *childInput) Close() error {
	if err := c.WriteCloser.Close(); err != nil {
		return fmt.Errorf("close stdin: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(c.grace)
		defer t.Stop()
		select {
		case err := <-exited:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if c.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	_ = c.cmd.Process.Kill()
	return <-exited
}

// frameGuard passes a server's stdout through line by line. A line longer
// than max is never held whole: it is scanned as it streams past for its
// top-level "id" and "method", and replaced by a JSON-RPC error response to
// that id (a message without an id, or a request from the server, is
// dropped). It is used by one reader.
type frameGuard struct {
	r   *bufio.Reader
	max int
	log *slog.Logger

	pending []byte
	err     error
}

func (g *frameGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.pending, g.err = g.readLine()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// readLine returns the next line (with its newline) or its replacement.
func (g *frameGuard) readLine() ([]byte, error) {
	var buf []byte
	var sc *frameScan
	total := 0
	for {
		chunk, err := g.r.ReadSlice('\n')
		total += len(chunk)
		switch {
		case sc != nil:
			sc.feed(chunk)
		case len(buf)+len(chunk) > g.max:
			sc = &frameScan{}
			sc.feed(buf)
			sc.feed(chunk)
			buf = nil
		default:
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if sc == nil {
			return buf, err
		}
		return g.refuse(sc, total), err
	}
}

// refuse returns the replacement of an oversized message.
func (g *frameGuard) refuse(sc *frameScan, size int) []byte {
	id := bytes.TrimSpace(sc.id)
	if sc.method || len(id) == 0 || !json.Valid(id) {
		g.log.Warn("dropped an oversized message from the MCP server", "bytes", size, "limit", g.max)
		return nil
	}
	g.log.Warn("refused an oversized answer from the MCP server", "bytes", size, "limit", g.max)
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{-32603, fmt.Sprintf("the answer is %.1f MiB, over the %d MiB limit for one MCP message, and was dropped (the server is still connected); ask for less at a time", float64(size)/(1<<20), g.max>>20)}})
	return append(b, '\n')
}

// frameScan follows a JSON object as it streams past and records its
// top-level "id" value and whether it has a top-level "method".
type frameScan struct {
	depth   int
	inStr   bool
	esc     bool
	keyPos  bool // at depth 1, the next string is a key
	inKey   bool
	key     []byte
	lastKey string
	capID   bool
	id      []byte
	method  bool
}

// maxIDBytes bounds the id kept; a longer one is not answered.
const maxIDBytes = 256

func (s *frameScan) feed(b []byte) {
	// Inside a string that is neither a key nor the id, only a quote or a
	// backslash matters: the scan jumps to the next one (IndexByte, not a
	// byte at a time), so a message of many megabytes, almost all of it
	// string content, costs little to refuse. nextQ and nextB are the
	// positions of the next '"' and '\\' at or after the current one
	// (len(b): none), each found once.
	nextQ, nextB := -1, -1
	for i := 0; i < len(b); i++ {
		if s.inStr && !s.esc && !s.inKey && !s.capID {
			if nextQ < i {
				nextQ = indexFrom(b, i, '"')
			}
			if nextB < i {
				nextB = indexFrom(b, i, '\\')
			}
			if i = min(nextQ, nextB); i == len(b) {
				return
			}
		}
		c := b[i]
		if s.inStr {
			if s.inKey && len(s.key) < 16 {
				s.key = append(s.key, c)
			}
			s.keepID(c)
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
				if s.inKey {
					s.inKey = false
					if len(s.key) > 0 {
						s.lastKey = string(s.key[:len(s.key)-1])
					}
					s.key = s.key[:0]
					if s.lastKey == "method" {
						s.method = true
					}
				}
			}
			continue
		}
		switch c {
		case '"':
			s.inStr = true
			if s.depth == 1 && s.keyPos {
				s.inKey, s.keyPos = true, false
			} else {
				s.keepID(c)
			}
		case '{', '[':
			s.keepID(c)
			s.depth++
			if s.depth == 1 {
				s.keyPos = true
			}
		case '}', ']':
			if s.depth == 1 {
				s.capID = false
			}
			s.keepID(c)
			s.depth--
		case ',':
			if s.depth == 1 {
				s.keyPos, s.capID = true, false
			}
			s.keepID(c)
		case ':':
			if s.depth == 1 && s.lastKey == "id" && s.id == nil {
				s.capID, s.id = true, []byte{}
				continue
			}
			s.keepID(c)
		default:
			s.keepID(c)
		}
	}
}

// indexFrom is the index of the first c in b at or after from, or len(b).
func indexFrom(b []byte, from int, c byte) int {
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return len(b)
}

func (s *frameScan) keepID(c byte) {
	if !s.capID {
		return
	}
	if len(s.id) >= maxIDBytes {
		s.id = []byte("!") // invalid: not answered
		s.capID = false
		return
	}
	s.id = append(s.id, c)
}
