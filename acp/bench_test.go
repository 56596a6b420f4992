package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// BenchmarkDecodePrompt10MiB measures decoding the params of a 10 MiB
// prompt (the agent does this once per prompt, off the read goroutine).
func BenchmarkDecodePrompt10MiB(b *testing.B) {
	params, _ := json.Marshal(map[string]any{"sessionId": "s", "prompt": []any{map[string]any{"type": "text", "text": strings.Repeat("a", 10<<20)}}})
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		var r acp.PromptRequest
		if err := json.Unmarshal(params, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPromptRoundTrip10MiB measures a 10 MiB session/prompt through the
// stream, jsonrpc2 and the dispatcher to an agent that answers at once.
func BenchmarkPromptRoundTrip10MiB(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"` + strings.Repeat("a", 10<<20) + `"}]}}` + "\n")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ac := acp.NewAgentConn(ctx, acp.NewStream(inR, outW, inR, acp.StreamOptions{}), &stubAgent{}, acp.ConnOptions{})
	defer ac.Close()
	r := bufio.NewReaderSize(outR, 1<<20)
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	if _, err := r.ReadString('\n'); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		go inW.Write(line)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(l, `"id":3`) {
				break
			}
		}
	}
}
