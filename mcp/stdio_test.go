package mcp

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestFrameGuard: lines within the limit pass unchanged; a longer answer
// becomes an error for its own top-level id wherever the id sits; a long
// message from the server that is not an answer is dropped.
func TestFrameGuard(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 300)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","result":{"id":99,"items":[{"id":5}],"text":"` + long + `"},"id":7}`,
		`{"id":"a\"b","jsonrpc":"2.0","result":{"text":"` + long + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"roots/list","params":{"text":"` + long + `"}}`,
		// Keys, brackets, escaped quotes and backslashes inside a long
		// string value are content, not structure.
		`{"jsonrpc":"2.0","result":{"text":"\"id\":1,\"method\":\"x\",{[\\` + long + `\\\"\\"},"id":8}`,
		`{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`,
	}, "\n") + "\n"
	g := &frameGuard{r: bufio.NewReaderSize(strings.NewReader(in), 16), max: 200, log: slog.New(slog.DiscardHandler)}
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5:\n%s", len(lines), out)
	}
	if lines[0] != `{"jsonrpc":"2.0","id":1,"result":{}}` || lines[4] != `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}` {
		t.Errorf("short lines changed:\n%s", out)
	}
	for i, wantID := range []string{`7`, `"a\"b"`, `8`} {
		var m struct {
			ID    json.RawMessage
			Error struct{ Message string }
		}
		if err := json.Unmarshal([]byte(lines[i+1]), &m); err != nil || string(m.ID) != wantID || !strings.Contains(m.Error.Message, "over the 0 MiB limit") {
			t.Errorf("line %d = %s (err %v), want an error for id %s", i+1, lines[i+1], err, wantID)
		}
	}
}

// BenchmarkFrameGuardOversized: refusing a 20 MiB answer (the size
// TestMCPOversizedResultKeepsServer sends), almost all of it one string.
func BenchmarkFrameGuardOversized(b *testing.B) {
	line := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 20<<20) + `"}]}}` + "\n"
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		g := &frameGuard{r: bufio.NewReaderSize(strings.NewReader(line), 64<<10), max: maxMessage, log: slog.New(slog.DiscardHandler)}
		out, err := io.ReadAll(g)
		if err != nil || !strings.Contains(string(out), `"id":3`) {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
