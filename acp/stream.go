package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// DefaultMaxLineBytes is the default cap on one incoming message line.
const DefaultMaxLineBytes = 64 << 20

// StreamOptions configures a [Stream]. The zero value is usable.
type StreamOptions struct {
	// MaxLineBytes caps one incoming line; 0 means DefaultMaxLineBytes.
	// Longer lines are discarded as they arrive (never buffered whole) and
	// answered with an Invalid Request error.
	MaxLineBytes int
	// Log receives malformed-input reports; nil discards them.
	Log *slog.Logger
	// Trace, when set, receives every line read or written (--debug-rpc).
	Trace *slog.Logger
}

// Stream is a newline-delimited JSON object stream for jsonrpc2: one compact
// JSON object per line. Blank lines are skipped. A malformed line is answered
// with a JSON-RPC error (-32700 with "id": null for unparsable JSON, -32600
// for valid JSON that is not a JSON-RPC message) and reading continues, so one
// bad line never ends the connection.
//
// jsonrpc2 calls ReadObject from one goroutine and serialises WriteObject;
// Stream serialises its own error replies with the same write lock.
type Stream struct {
	r     *bufio.Reader
	w     io.Writer
	c     io.Closer
	max   int
	log   *slog.Logger
	trace *slog.Logger

	wmu sync.Mutex // guards writes to w

	// onEOF, set by the connection before reading starts, runs when the
	// input ends and before jsonrpc2 learns of it (which closes the
	// connection): requests already read still get their replies.
	onEOF func()
	// pending is a read error held back until the line read with it was
	// delivered.
	pending error

	// Large params bypass jsonrpc2's decoding (which decodes them into maps
	// and re-encodes them): the stream hands jsonrpc2 a small placeholder
	// and keeps the bytes here until the connection takes them back.
	smu     sync.Mutex // guards stash and stashID
	stash   map[int64][]byte
	stashID int64
}

// stashThreshold is the params size above which they bypass jsonrpc2.
const stashThreshold = 256 << 10

// stashKey is the member of the placeholder params.
const stashKey = "$hermes.params"

// envelope is the top level of a JSON-RPC message.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  json.RawMessage `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// slim replaces the params of a large request by a placeholder.
func (s *Stream) slim(line []byte) []byte {
	var e envelope
	if json.Unmarshal(line, &e) != nil || len(e.Params) < stashThreshold || len(e.Method) == 0 || len(e.Result) > 0 || len(e.Error) > 0 {
		return line
	}
	s.smu.Lock()
	if s.stash == nil {
		s.stash = map[int64][]byte{}
	}
	s.stashID++
	id := s.stashID
	s.stash[id] = e.Params
	s.smu.Unlock()
	e.Params = json.RawMessage(`{"` + stashKey + `":` + strconv.FormatInt(id, 10) + `}`)
	out, err := json.Marshal(e)
	if err != nil {
		return line
	}
	return out
}

// unstash returns the real params for a placeholder (once), or false.
func (s *Stream) unstash(params []byte) ([]byte, bool) {
	if len(params) > 64 || !bytes.Contains(params, []byte(stashKey)) {
		return nil, false
	}
	var p map[string]int64
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	id, ok := p[stashKey]
	if !ok {
		return nil, false
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	b, ok := s.stash[id]
	delete(s.stash, id)
	return b, ok
}

var _ jsonrpc2.ObjectStream = (*Stream)(nil)

// NewStream returns a stream reading r and writing w. Close closes c when it
// is not nil.
func NewStream(r io.Reader, w io.Writer, c io.Closer, opts StreamOptions) *Stream {
	max := opts.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Stream{r: bufio.NewReaderSize(r, 64<<10), w: w, c: c, max: max, log: log, trace: opts.Trace}
}

// errLineTooLong marks a line over the cap; it has been consumed.
var errLineTooLong = errors.New("line too long")

// WriteObject writes v as one compact JSON line.
func (s *Stream) WriteObject(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return s.writeLine(b)
}

func (s *Stream) writeLine(b []byte) error {
	if s.trace != nil {
		s.trace.Debug("rpc send", "line", string(b))
	}
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.w.Write(line)
	return err
}

// ReadObject reads the next well-formed JSON-RPC message into v, answering
// and skipping malformed lines.
func (s *Stream) ReadObject(v any) error {
	if err := s.pending; err != nil {
		s.pending = nil
		s.inputEnded(err)
		return err
	}
	for {
		line, err := s.readLine()
		if errors.Is(err, errLineTooLong) {
			s.log.Warn("refused oversized message", "limit_bytes", s.max)
			s.replyError(nil, CodeInvalidRequest, fmt.Sprintf("Invalid request: message exceeds the %d-byte limit", s.max))
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				s.inputEnded(err)
				return err
			}
			continue
		}
		if s.trace != nil {
			s.trace.Debug("rpc recv", "line", string(line))
		}
		if ok := s.decode(line, v); ok {
			if err != nil {
				// Deliver this last line; the next call reports the end.
				s.pending = err
			}
			return nil
		}
		if err != nil {
			s.inputEnded(err)
			return err
		}
	}
}

func (s *Stream) inputEnded(err error) {
	if s.onEOF != nil && errors.Is(err, io.EOF) {
		s.onEOF()
	}
}

// decode unmarshals one line into v, or answers it with an error and reports
// false.
func (s *Stream) decode(line []byte, v any) bool {
	line = bytes.TrimSpace(line)
	if line[0] != '{' {
		if !json.Valid(line) {
			s.log.Warn("malformed JSON-RPC line", "bytes", len(line))
			s.replyError(nil, CodeParseError, "Parse error: the line is not valid JSON")
			return false
		}
		msg := "Invalid request: expected a JSON object"
		if line[0] == '[' {
			msg = "Invalid request: batch requests are not supported"
		}
		s.replyError(nil, CodeInvalidRequest, msg)
		return false
	}
	if len(line) > stashThreshold {
		line = s.slim(line)
	}
	err := json.Unmarshal(line, v) // validates the syntax first, so no separate pass
	if err == nil {
		return true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || !json.Valid(line) {
		s.log.Warn("malformed JSON-RPC line", "bytes", len(line))
		s.replyError(nil, CodeParseError, "Parse error: the line is not valid JSON")
		return false
	}
	id := requestID(line)
	if id == nil && !hasMember(line, "method") && (hasMember(line, "result") || hasMember(line, "error")) {
		// A malformed response to one of our calls: nothing to answer.
		s.log.Warn("ignoring malformed JSON-RPC message", "error", err)
		return false
	}
	s.replyError(id, CodeInvalidRequest, "Invalid request: "+err.Error())
	return false
}

// readLine returns the next line without its newline. A line longer than the
// cap is consumed and reported as errLineTooLong without being kept.
func (s *Stream) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) > s.max+1 {
			// Discard the rest of this line.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = s.r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return buf, err
		}
		return buf[:len(buf)-1], nil
	}
}

// replyError writes an error response with the given raw id (nil → null).
func (s *Stream) replyError(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil {
		return
	}
	if err := s.writeLine(b); err != nil {
		s.log.Warn("write error reply", "error", err)
	}
}

// requestID extracts a usable id (string or integer) from a JSON object.
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var str string
	if json.Unmarshal(m.ID, &str) == nil {
		return m.ID
	}
	if _, err := strconv.ParseInt(string(m.ID), 10, 64); err == nil {
		return m.ID
	}
	return nil
}

func hasMember(line []byte, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	_, ok := m[name]
	return ok
}

// Close closes the underlying closer, if any.
func (s *Stream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}
