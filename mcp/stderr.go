package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// maxStderrLine caps one logged line of a server's stderr.
const maxStderrLine = 4096

// lineLog is the stderr of a stdio server: every line is logged. It is
// safe for concurrent use; a nil *lineLog ignores flush.
type lineLog struct {
	log *slog.Logger

	mu   sync.Mutex // guards buf and last
	buf  []byte
	last string // the last non-empty line
}

// Write logs the complete lines of p and keeps the rest for later.
func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf = append(l.buf, p...)
	var lines []string
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > maxStderrLine {
		lines = append(lines, string(l.buf))
		l.buf = nil
	}
	l.buf = append([]byte(nil), l.buf...)
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], "\r")
		if strings.TrimSpace(lines[i]) != "" {
			l.last = lines[i]
		}
	}
	l.mu.Unlock()
	for _, line := range lines {
		l.log.Info("MCP server stderr", "line", line)
	}
	return len(p), nil
}

// lastLine returns the last non-empty line written; "" for a nil lineLog.
func (l *lineLog) lastLine() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// flush logs a last line that had no newline.
func (l *lineLog) flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	rest := strings.TrimRight(string(l.buf), "\r")
	l.buf = nil
	if strings.TrimSpace(rest) != "" {
		l.last = rest
	}
	l.mu.Unlock()
	if rest != "" {
		l.log.Info("MCP server stderr", "line", rest)
	}
}
