package main_test

// The official ACP TypeScript SDK drives a session past the compression
// threshold of a small model.context_length (conformance/compress.mjs); the
// fake model checks the next request is compressed and a second process's
// session/load replays the whole original conversation.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

func TestTypeScriptSDKCompression(t *testing.T) {
	t.Parallel()
	const summary = "SUMMARY-OF-EARLIER-TURNS: files were read."
	fileN := regexp.MustCompile(`read (file(\d+)\.txt)`)
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		if len(r.Messages) == 1 && strings.Contains(r.Messages[0].Content, "TURNS TO SUMMARIZE") {
			return modeltest.Turn{Text: []string{summary}}
		}
		last := r.Last()
		if last.Role == "tool" {
			n := strings.TrimPrefix(last.ToolCallID, "call_")
			return modeltest.Turn{Text: []string{"read " + n}}
		}
		if last.Content == "again file1.txt" {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_again", Name: "read_file", Arguments: `{"path":"file1.txt"}`}}}
		}
		if m := fileN.FindStringSubmatch(last.Content); m != nil {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_" + m[2], Name: "read_file", Arguments: `{"path":"` + m[1] + `"}`}}}
		}
		return modeltest.Turn{Text: []string{"?"}}
	})
	home := t.TempDir()
	cfg := "model:\n  context_length: 4000\ntoolsets: [file]\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sdkRun{script: filepath.Join("conformance", "compress.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 90*time.Second, append(modelEnv(srv), "HERMES_HOME="+home)...)
	r.transcriptOf(t) // every agent line validates against the schema

	var reqs []modeltest.Request
	for _, raw := range srv.Requests() {
		req, err := modeltest.ParseRequest(raw)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	at := -1
	for i, req := range reqs {
		if len(req.Messages) == 1 && strings.Contains(req.Messages[0].Content, "TURNS TO SUMMARIZE") {
			at = i
			break
		}
	}
	if at <= 0 || at+1 >= len(reqs) {
		t.Fatalf("no compression among %d model requests", len(reqs))
	}
	before, next := reqs[at-1], reqs[at+1]
	if len(next.Messages) >= len(before.Messages) {
		t.Errorf("the request after compression has %d messages, the one before %d", len(next.Messages), len(before.Messages))
	}
	hasSummary := false
	for _, m := range next.Messages {
		hasSummary = hasSummary || strings.Contains(m.Content, summary)
	}
	if !hasSummary {
		t.Error("the request after compression has no summary message")
	}
	if next.Messages[1].Role != "user" || next.Messages[1].Content != "read file1.txt" {
		t.Errorf("the first exchange is not kept: %q", next.Messages[1].Content)
	}
	for i, req := range reqs {
		calls := map[string]bool{}
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
			if m.Role == "tool" && !calls[m.ToolCallID] {
				t.Errorf("request %d: tool result %s without its call", i, m.ToolCallID)
			}
			delete(calls, m.ToolCallID)
		}
		if len(calls) > 0 {
			t.Errorf("request %d: calls without results: %v", i, calls)
		}
	}
	// Compression reset the read dedup: file1.txt, read before, comes back
	// in full rather than as "File unchanged since last read".
	again := ""
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.ToolCallID == "call_again" {
			again = m.Content
		}
	}
	if !strings.Contains(again, "lorem ipsum") {
		t.Errorf("file1.txt read again after compression: %.200q", again)
	}
	t.Logf("%d model requests; compression at request %d: %d → %d messages", len(reqs), at, len(before.Messages), len(next.Messages))
}
