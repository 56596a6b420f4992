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

	// Incoming requests carry an internal id through jsonrpc2; the raw id
	// the peer sent is kept here until the reply is written.
	imu    sync.Mutex        // guards ids, byKey and nextID
	ids    map[uint64]inID   // internal id → the id as sent
	byKey  map[string]uint64 // id key → internal id, for requests in progress
	nextID uint64
}

// inID is the id of an incoming request as the peer sent it.
type inID struct {
	raw json.RawMessage
	key string // "s"+string value or "n"+integer literal
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

// stashParams keeps large params out of jsonrpc2 and returns their key.
func (s *Stream) stashParams(p json.RawMessage) int64 {
	s.smu.Lock()
	defer s.smu.Unlock()
	if s.stash == nil {
		s.stash = map[int64][]byte{}
	}
	s.stashID++
	s.stash[s.stashID] = p
	return s.stashID
}

// dropStash forgets stashed params that will never be taken back.
func (s *Stream) dropStash(id int64) {
	s.smu.Lock()
	delete(s.stash, id)
	s.smu.Unlock()
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

// decode checks one line, hands a well-formed message to v (jsonrpc2), or
// answers it with an error and reports false.
//
// Requests are checked here, before jsonrpc2 sees them, because jsonrpc2
// accepts what JSON-RPC 2.0 refuses (no or a wrong "jsonrpc" member, "id":
// null taken for a notification) and cannot echo every valid id (negative
// ids wrap to unsigned). The stream gives each incoming request an internal
// id and keeps the raw id bytes; the connection answers through [Stream.respond],
// which writes the raw id back exactly as it was sent.
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
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		s.log.Warn("malformed JSON-RPC line", "bytes", len(line))
		s.replyError(nil, CodeParseError, "Parse error: the line is not valid JSON")
		return false
	}
	id, key, idOK := checkID(e.ID)
	if e.Method == nil {
		if e.Result != nil || e.Error != nil {
			return s.decodeResponse(line, &e, id, idOK, v)
		}
		s.replyError(id, CodeInvalidRequest, "Invalid request: a message needs a method, a result or an error")
		return false
	}
	var method string
	if json.Unmarshal(e.Method, &method) != nil {
		s.replyError(id, CodeInvalidRequest, "Invalid request: method must be a string")
		return false
	}
	if !versionOK(e.JSONRPC) {
		s.replyError(id, CodeInvalidRequest, `Invalid request: "jsonrpc" must be "2.0"`)
		return false
	}
	switch {
	case e.ID == nil: // a notification
	case string(e.ID) == "null":
		s.replyError(nil, CodeInvalidRequest, "Invalid request: id must not be null (omit id to send a notification)")
		return false
	case !idOK:
		s.replyError(nil, CodeInvalidRequest, "Invalid request: id must be a string or an integer")
		return false
	}
	var internal uint64
	if e.ID != nil {
		var dup bool
		internal, dup = s.register(id, key)
		if dup {
			s.log.Warn("refused a request reusing an id in progress", "id", string(id), "method", method)
			s.replyError(id, CodeInvalidRequest, fmt.Sprintf("Invalid request: id %s is already used by a request in progress; use a new id for each request", id))
			return false
		}
	}
	var stash int64
	if len(e.Params) >= stashThreshold {
		stash = s.stashParams(e.Params)
		e.Params = json.RawMessage(`{"` + stashKey + `":` + strconv.FormatInt(stash, 10) + `}`)
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      *uint64         `json:"id,omitempty"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{JSONRPC: "2.0", Method: e.Method, Params: e.Params}
	if e.ID != nil {
		msg.ID = &internal
	}
	b, err := json.Marshal(msg)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		// Not expected: the message was checked above. Drop what was kept
		// for it so a rejected request holds no memory.
		if e.ID != nil {
			s.release(internal)
		}
		if stash != 0 {
			s.dropStash(stash)
		}
		s.replyError(id, CodeInvalidRequest, "Invalid request: "+err.Error())
		return false
	}
	return true
}

// decodeResponse hands a response to one of our calls to v. A response
// without "jsonrpc": "2.0" is delivered as an error to the waiting call.
func (s *Stream) decodeResponse(line []byte, e *envelope, id json.RawMessage, idOK bool, v any) bool {
	if !idOK {
		s.log.Warn("ignoring a JSON-RPC response without a usable id", "id", string(e.ID))
		return false
	}
	b := line // as sent: a large fs/read_text_file result is not copied again
	if !versionOK(e.JSONRPC) {
		s.log.Warn(`refused a JSON-RPC response without "jsonrpc": "2.0"`, "id", string(id))
		b, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   rpcError        `json:"error"`
		}{"2.0", id, rpcError{Code: CodeInvalidRequest, Message: `Invalid response: "jsonrpc" must be "2.0"`}})
	}
	if err := json.Unmarshal(b, v); err != nil {
		s.log.Warn("ignoring malformed JSON-RPC response", "error", err)
		return false
	}
	return true
}

// versionOK reports whether the "jsonrpc" member is exactly "2.0".
func versionOK(raw json.RawMessage) bool {
	var v string
	return raw != nil && json.Unmarshal(raw, &v) == nil && v == "2.0"
}

// checkID returns a valid request id (a JSON string or integer literal of
// any size) with the key that identifies it, or ok false.
func checkID(raw json.RawMessage) (id json.RawMessage, key string, ok bool) {
	if len(raw) == 0 {
		return nil, "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return nil, "", false
		}
		return raw, "s" + str, true
	case c == '-' || (c >= '0' && c <= '9'):
		digits := raw
		if c == '-' {
			digits = raw[1:]
		}
		if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
			return nil, "", false
		}
		for _, d := range digits {
			if d < '0' || d > '9' {
				return nil, "", false
			}
		}
		if string(raw) == "-0" {
			return raw, "n0", true
		}
		return raw, "n" + string(raw), true
	}
	return nil, "", false
}

// register records an incoming request's raw id and returns the internal id
// jsonrpc2 sees, or dup when the id is already in progress.
func (s *Stream) register(raw json.RawMessage, key string) (internal uint64, dup bool) {
	s.imu.Lock()
	defer s.imu.Unlock()
	if _, ok := s.byKey[key]; ok {
		return 0, true
	}
	if s.ids == nil {
		s.ids = map[uint64]inID{}
		s.byKey = map[string]uint64{}
	}
	s.nextID++
	s.ids[s.nextID] = inID{raw: raw, key: key}
	s.byKey[key] = s.nextID
	return s.nextID, false
}

// release forgets an incoming request's id and returns its raw bytes.
func (s *Stream) release(internal uint64) (json.RawMessage, bool) {
	s.imu.Lock()
	defer s.imu.Unlock()
	in, ok := s.ids[internal]
	if !ok {
		return nil, false
	}
	delete(s.ids, internal)
	delete(s.byKey, in.key)
	return in.raw, true
}

// inFlight returns the internal id of the request in progress whose raw id
// is raw ($/cancel_request names requests by the id the peer sent).
func (s *Stream) inFlight(raw json.RawMessage) (jsonrpc2.ID, bool) {
	_, key, ok := checkID(bytes.TrimSpace(raw))
	if !ok {
		return jsonrpc2.ID{}, false
	}
	s.imu.Lock()
	defer s.imu.Unlock()
	n, ok := s.byKey[key]
	return jsonrpc2.ID{Num: n}, ok
}

// respond writes the reply to the incoming request with internal id: the
// result, or rerr when it is not nil. The id goes out exactly as the peer
// sent it, and is free for reuse from then on.
func (s *Stream) respond(id jsonrpc2.ID, result any, rerr *jsonrpc2.Error) error {
	raw, ok := s.release(id.Num)
	if !ok {
		b, err := json.Marshal(id)
		if err != nil {
			return fmt.Errorf("encode id: %w", err)
		}
		raw = b
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *jsonrpc2.Error `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: raw, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			return fmt.Errorf("encode result: %w", err)
		}
		msg.Result = b
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode reply: %w", err)
	}
	return s.writeLine(b)
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
		Error   rpcError        `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: rpcError{code, msg}})
	if err != nil {
		return
	}
	if err := s.writeLine(b); err != nil {
		s.log.Warn("write error reply", "error", err)
	}
}

// rpcError is the error member of a reply the stream writes itself.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Close closes the underlying closer, if any.
func (s *Stream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}
