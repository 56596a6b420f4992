package acp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// bufWriter collects what the stream writes.
type bufWriter struct{ bytes.Buffer }

// FuzzStreamDecoding: whatever arrives on a line, the stream never panics,
// every reply it writes itself is one valid JSON-RPC error line, and a valid
// message after the garbage is still delivered.
func FuzzStreamDecoding(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{}`, `null`, `"str"`, `{"method":5}`, "\x00\xff", `{"id":{"x":1},"method":"m"}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`, `{"id":1,"method":"x"}`, `{"jsonrpc":"1.0","id":"a","method":"x"}`,
		`{"jsonrpc":"2.0","id":-1,"method":"x"}`, `{"jsonrpc":"2.0","id":18446744073709551616,"method":"x"}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`, `{"id":7,"result":{}}`, `{"jsonrpc":"2.0","id":1e2,"method":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.ReplaceAll(line, []byte("\n"), nil)
		good := `{"jsonrpc":"2.0","method":"ping","params":{}}` // a notification: the garbage may use any id
		in := bytes.NewBufferString(string(line) + "\n" + good + "\n")
		var out bufWriter
		s := acp.NewStream(in, &out, nil, acp.StreamOptions{MaxLineBytes: 1 << 16})
		var delivered []json.RawMessage
		for {
			var msg json.RawMessage
			if err := s.ReadObject(&msg); err != nil {
				if err != io.EOF {
					t.Fatalf("ReadObject error %v", err)
				}
				break
			}
			delivered = append(delivered, msg)
		}
		if len(delivered) == 0 || !bytes.Contains(delivered[len(delivered)-1], []byte(`"ping"`)) {
			t.Fatalf("the valid line after %q was not delivered: %q", line, delivered)
		}
		for _, reply := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			if len(reply) == 0 {
				continue
			}
			var e map[string]json.RawMessage
			if err := json.Unmarshal(reply, &e); err != nil {
				t.Fatalf("stream wrote invalid JSON %q for input %q", reply, line)
			}
			_, hasID := e["id"]
			var code struct{ Code int }
			if string(e["jsonrpc"]) != `"2.0"` || !hasID || json.Unmarshal(e["error"], &code) != nil || code.Code == 0 {
				t.Fatalf("stream wrote %q for input %q", reply, line)
			}
		}
	})
}

// FuzzPromptRequest: decoding prompt params never panics and a decoded
// prompt re-encodes to JSON that decodes to the same blocks.
func FuzzPromptRequest(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"hi"},{"type":"resource_link","uri":"file:///a","name":"a"}]}`))
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"u","blob":"AA=="}}]}`))
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"image","data":"x","mimeType":"image/png"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r acp.PromptRequest
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		b, err := json.Marshal(&r)
		if err != nil {
			for _, blk := range r.Prompt {
				if blk.Kind() == "" {
					return // an empty block cannot be encoded; decoding never yields one unless the input had no type
				}
			}
			t.Fatalf("re-encode %q: %v", data, err)
		}
		var back acp.PromptRequest
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("decode of re-encoded %q: %v", b, err)
		}
		if len(back.Prompt) != len(r.Prompt) {
			t.Fatalf("round trip changed the prompt length: %d → %d", len(r.Prompt), len(back.Prompt))
		}
	})
}
