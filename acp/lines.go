package acp

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// SelectLines applies fs/read_text_file's optional 1-based line and limit
// to text: the lines from line on, at most limit of them. Clients serving
// fs/read_text_file use it.
func SelectLines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 && start+*limit < end {
		end = start + *limit
	}
	return strings.Join(lines[start:end], "")
}

// LineTap passes bytes through (reading R or writing W) and shows every
// complete line to Tap, with FromAgent telling the direction. Transcripts
// (--json) and schema checks in tests use it. It is safe for one reader and
// concurrent writers.
type LineTap struct {
	R         io.Reader
	W         io.Writer
	Tap       func(fromAgent bool, line []byte)
	FromAgent bool

	mu  sync.Mutex // guards buf
	buf []byte
}

// Read reads from R.
func (t *LineTap) Read(p []byte) (int, error) {
	n, err := t.R.Read(p)
	if n > 0 {
		t.feed(p[:n])
	}
	return n, err
}

// Write writes to W.
func (t *LineTap) Write(p []byte) (int, error) {
	t.feed(p)
	return t.W.Write(p)
}

func (t *LineTap) feed(p []byte) {
	if t.Tap == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			// Do not keep the array of a long line that has been shown.
			if len(t.buf) == 0 {
				t.buf = nil
			} else if cap(t.buf) > 1<<20 && len(t.buf) < cap(t.buf)/4 {
				t.buf = append([]byte(nil), t.buf...)
			}
			return
		}
		line := append([]byte(nil), t.buf[:i]...)
		t.buf = t.buf[i+1:]
		t.Tap(t.FromAgent, line)
	}
}
