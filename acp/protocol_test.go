package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
)

// nextRaw returns the next line the agent wrote, unparsed, so ids can be
// compared byte for byte (a float64 cannot hold 9007199254740993).
func (r *rawConn) nextRaw(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-r.out:
		if !ok {
			t.Fatal("connection closed")
		}
		return line
	case <-time.After(60 * time.Second):
		t.Fatal("no message from agent")
	}
	return ""
}

// rawID returns the id member of a reply exactly as written.
func rawID(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("agent wrote invalid JSON %q: %v", line, err)
	}
	return string(m.ID)
}

// TestIDsEchoedExactly: every valid id (string or integer of any size) comes
// back byte for byte, on results and on errors.
func TestIDsEchoedExactly(t *testing.T) {
	t.Parallel()
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	for _, id := range []string{
		`-1`, `9223372036854775807`, `-9223372036854775808`, `9007199254740993`,
		`18446744073709551616`, `0`, `"abc"`, `""`, `"\u0061b"`, `"-1"`,
	} {
		rc.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"session/list","params":{}}`)
		line := rc.nextRaw(t)
		if got := rawID(t, line); got != id || !strings.Contains(line, `"result"`) {
			t.Errorf("session/list with id %s → %s, want a result with id %s", id, line, id)
		}
		rc.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"session/fly","params":{}}`)
		line = rc.nextRaw(t)
		if got := rawID(t, line); got != id || !strings.Contains(line, `-32601`) {
			t.Errorf("unknown method with id %s → %s, want -32601 with id %s", id, line, id)
		}
	}
}

// TestInvalidEnvelopes: JSON-RPC 2.0's rules on "jsonrpc" and "id" are
// enforced with -32600, echoing the id when there is a valid one.
func TestInvalidEnvelopes(t *testing.T) {
	t.Parallel()
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	for _, tc := range []struct{ name, line, wantID string }{
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"session/list","params":{}}`, `null`},
		{"jsonrpc missing", `{"id":3,"method":"session/list","params":{}}`, `3`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"x","method":"session/list","params":{}}`, `"x"`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":-4,"method":"session/list","params":{}}`, `-4`},
		{"jsonrpc null", `{"jsonrpc":null,"id":5,"method":"session/list","params":{}}`, `5`},
		{"notification without jsonrpc", `{"method":"session/cancel","params":{"sessionId":"s1"}}`, `null`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"session/list"}`, `null`},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"session/list"}`, `null`},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"session/list"}`, `null`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"session/list"}`, `null`},
		{"no method", `{"jsonrpc":"2.0","id":6}`, `6`},
	} {
		rc.send(t, tc.line)
		line := rc.nextRaw(t)
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		if errCode(m) != acp.CodeInvalidRequest || rawID(t, line) != tc.wantID {
			t.Errorf("%s: reply %s, want -32600 with id %s", tc.name, line, tc.wantID)
		}
	}
	rc.send(t, `{"jsonrpc":"2.0","id":7,"method":"session/list","params":{}}`)
	if line := rc.nextRaw(t); rawID(t, line) != "7" || !strings.Contains(line, `"result"`) {
		t.Fatalf("after invalid envelopes, session/list = %s", line)
	}
}

// TestDuplicateInFlightID: a second request reusing the id of a running
// prompt is refused; session/cancel and $/cancel_request still reach the
// running turn, and the id is free again once it was answered.
func TestDuplicateInFlightID(t *testing.T) {
	t.Parallel()
	ag := &stubAgent{started: make(chan string, 2)}
	ag.promptHook = func(ctx context.Context, req *acp.PromptRequest) (acp.StopReason, error) {
		<-ctx.Done()
		return acp.StopCancelled, nil
	}
	rc := newRaw(t, ag, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	prompt := `{"jsonrpc":"2.0","id":-5,"method":"session/prompt","params":{"sessionId":"%s","prompt":[]}}`
	rc.send(t, fmt.Sprintf(prompt, "s1"))
	<-ag.started
	rc.send(t, fmt.Sprintf(prompt, "s2"))
	line := rc.nextRaw(t)
	if rawID(t, line) != "-5" || !strings.Contains(line, "-32600") || !strings.Contains(line, "already used") {
		t.Fatalf("duplicate in-flight id → %s, want -32600 with id -5 saying it is in use", line)
	}
	rc.send(t, `{"jsonrpc":"2.0","id":-5,"method":"session/list","params":{}}`)
	if line := rc.nextRaw(t); !strings.Contains(line, "-32600") {
		t.Fatalf("duplicate in-flight id (other method) → %s, want -32600", line)
	}
	rc.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	line = rc.nextRaw(t)
	if rawID(t, line) != "-5" || !strings.Contains(line, `"stopReason":"cancelled"`) {
		t.Fatalf("running prompt after session/cancel = %s, want cancelled with id -5", line)
	}
	// Answered: the id may be used again, and $/cancel_request finds it.
	rc.send(t, fmt.Sprintf(prompt, "s1"))
	<-ag.started
	rc.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":-5}}`)
	line = rc.nextRaw(t)
	if rawID(t, line) != "-5" || !strings.Contains(line, `"stopReason":"cancelled"`) {
		t.Fatalf("reused id after $/cancel_request = %s, want cancelled with id -5", line)
	}
}

// TestRejectedRequestsFreeMemory: 1 MiB requests refused for every kind of
// reason leave no more than a few MiB of live heap behind. 100 of them keep
// the -race run short; before the fix a third of them stayed in memory.
func TestRejectedRequestsFreeMemory(t *testing.T) {
	// Not parallel: it measures the heap.
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	send := rejectedSender(t, rc)
	send(0) // not initialized yet
	rc.send(t, initLine)
	rc.next(t)
	before := heapInUse()
	for i := 1; i <= 100; i++ {
		send(i)
	}
	after := heapInUse()
	const allowed = 8 << 20
	if after > before+allowed {
		t.Fatalf("after 100 rejected 1 MiB requests the heap in use grew by %d MiB (from %d to %d MiB), want at most %d MiB",
			(after-before)>>20, before>>20, after>>20, allowed>>20)
	}
}

// rejectedSender returns a function sending the i-th of a rotation of
// 1 MiB requests that are all refused, and reading the refusal.
func rejectedSender(t *testing.T, rc *rawConn) func(i int) {
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	kinds := []func(id string) string{
		func(id string) string { // refused by the stream: wrong version
			return `{"jsonrpc":"1.0","id":` + id + `,"method":"session/list","params":{"cwd":` + big + `}}`
		},
		func(id string) string { // refused by the stream: fractional id
			return `{"jsonrpc":"2.0","id":` + id + `.5,"method":"session/list","params":{"cwd":` + big + `}}`
		},
		func(id string) string { // refused by the stream: object id
			return `{"jsonrpc":"2.0","id":{"n":` + id + `},"method":"session/list","params":{"cwd":` + big + `}}`
		},
		func(id string) string { // refused by the router
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/fly","params":{"x":` + big + `}}`
		},
		func(id string) string { // refused while decoding params
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/set_mode","params":{"sessionId":5,"modeId":` + big + `}}`
		},
		func(id string) string { // before initialize, or wrong version after
			return `{"id":` + id + `,"method":"session/list","params":{"cwd":` + big + `}}`
		},
	}
	return func(i int) {
		rc.send(t, kinds[(i+len(kinds)-1)%len(kinds)](strconv.Itoa(i)))
		if m := rc.next(t); m["error"] == nil {
			t.Fatalf("request %d was not refused: %v", i, m)
		}
	}
}

// heapInUse returns the heap in use after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestLargePromptNotRetained: once a 20 MiB prompt has been answered,
// nothing of it stays on the heap (the read loop used to hold the last
// request's params until the next message arrived).
func TestLargePromptNotRetained(t *testing.T) {
	// Not parallel: it measures the heap.
	rc := newRaw(t, &stubAgent{}, acp.StreamOptions{})
	rc.send(t, initLine)
	rc.next(t)
	before := heapInUse()
	rc.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"`+strings.Repeat("a", 20<<20)+`"}]}}`)
	rc.next(t) // the update
	if m := rc.next(t); m["result"] == nil {
		t.Fatalf("20 MiB prompt = %v", m)
	}
	after := heapInUse()
	const allowed = 8 << 20
	if after > before+allowed {
		t.Fatalf("after a 20 MiB prompt was answered the heap in use grew by %d MiB, want at most %d MiB", (after-before)>>20, allowed>>20)
	}
}

// TestLineTapDropsLongLines: a transcript tap does not keep the buffer of
// a 20 MiB line once the line has been shown.
func TestLineTapDropsLongLines(t *testing.T) {
	// Not parallel: it measures the heap.
	var lines, longest int
	tap := &acp.LineTap{W: io.Discard, Tap: func(_ bool, line []byte) {
		lines++
		longest = max(longest, len(line))
	}}
	before := heapInUse()
	chunk := []byte(strings.Repeat("a", 64<<10))
	for range 20 << 4 {
		if _, err := tap.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tap.Write([]byte("\n{\"partial")); err != nil {
		t.Fatal(err)
	}
	after := heapInUse()
	runtime.KeepAlive(tap)
	if lines != 1 || longest != 20<<20 {
		t.Fatalf("tap saw %d lines, the longest %d bytes; want 1 of %d", lines, longest, 20<<20)
	}
	const allowed = 4 << 20
	if after > before+allowed {
		t.Fatalf("after a 20 MiB line the tap holds %d MiB more heap, want at most %d MiB", (after-before)>>20, allowed>>20)
	}
}
