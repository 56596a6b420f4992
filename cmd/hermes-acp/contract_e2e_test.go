package main_test

// The official ACP TypeScript SDK plays the editor of
// conformance/contract.mjs against an agent process started in a folder
// that is not the session's cwd, for the two bugs of issue #10 fixed ahead
// of its refactor: two writes of one file in one reply, spelled relative
// and absolute, run one after the other and the file ends with the last
// approved content; and results the budget saved are read back with
// read_file, the tool their note names, while another session's saved
// result and $HERMES_HOME/sessions.db stay unreadable.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

var (
	contractSavedRE  = regexp.MustCompile(`(?m)^Full output saved to: (.+)$`)
	contractReaderRE = regexp.MustCompile(`(?m)^Use the (\S+) tool with offset and limit`)
)

// contractModel scripts the model of contract.mjs. Each prompt's replies
// depend only on the tool results of the current turn.
type contractModel struct {
	t         testing.TB
	wsA, home string

	mu        sync.Mutex
	otherPath string         // the result session B's budget saved
	offsets   map[string]int // read_file call id → the offset it asked for
}

func toolArgs(t testing.TB, v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (m *contractModel) search(id, dir string) modeltest.ToolCall {
	return modeltest.ToolCall{ID: id, Name: "search_files", Arguments: toolArgs(m.t, map[string]any{
		"pattern": "MARK", "path": dir, "target": "content", "limit": 1500})}
}

func (m *contractModel) read(id, tool, path string, offset int) modeltest.ToolCall {
	m.offsets[id] = offset
	return modeltest.ToolCall{ID: id, Name: tool, Arguments: toolArgs(m.t, map[string]any{
		"path": path, "offset": offset, "limit": 2000})}
}

func text(s string) modeltest.Turn { return modeltest.Turn{Text: []string{s}} }

func (m *contractModel) respond(r modeltest.Request) modeltest.Turn {
	m.mu.Lock()
	defer m.mu.Unlock()
	last := -1
	for i, msg := range r.Messages {
		if msg.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		m.t.Errorf("model request without a user message")
		return text("no prompt")
	}
	prompt := r.Messages[last].Content
	results := map[string]string{}
	for _, msg := range r.Messages[last+1:] {
		if msg.Role == "tool" {
			results[msg.ToolCallID] = msg.Content
		}
	}
	switch {
	case strings.Contains(prompt, "contract other"):
		if len(results) == 0 {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{m.search("call_o1", "big")}}
		}
		if s := contractSavedRE.FindStringSubmatch(results["call_o1"]); s != nil {
			m.otherPath = s[1]
		}
		return text("other done")
	case strings.Contains(prompt, "contract writes"):
		if len(results) == 0 {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{
				{ID: "call_w1", Name: "write_file", Arguments: toolArgs(m.t, map[string]any{"path": "x.txt", "content": "first\n"})},
				{ID: "call_w2", Name: "write_file", Arguments: toolArgs(m.t, map[string]any{"path": filepath.Join(m.wsA, "x.txt"), "content": "second\n"})},
			}}
		}
		return text("writes done")
	case strings.Contains(prompt, "contract budget"):
		if len(results) == 0 {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{
				m.search("call_s1", "big1"), m.search("call_s2", "big2"), m.search("call_s3", "big3")}}
		}
		var calls []modeltest.ToolCall
		for k := 1; k <= 3; k++ {
			note := results[fmt.Sprintf("call_s%d", k)]
			s, reader := contractSavedRE.FindStringSubmatch(note), contractReaderRE.FindStringSubmatch(note)
			if s == nil || reader == nil {
				m.t.Errorf("search call_s%d: the model saw no saved-result note naming a tool: %.300q", k, note)
				return text("no note")
			}
			page := 0
			for results[fmt.Sprintf("call_r%d_%d", k, page+1)] != "" {
				page++
			}
			offset := 1
			if page > 0 {
				id := fmt.Sprintf("call_r%d_%d", k, page)
				var res struct {
					Truncated  bool `json:"truncated"`
					NextOffset int  `json:"next_offset"`
				}
				if err := json.Unmarshal([]byte(results[id]), &res); err != nil {
					m.t.Errorf("read %s: result is not JSON (%v): %.300q", id, err, results[id])
					return text("bad read")
				}
				if !res.Truncated {
					continue // read to the end
				}
				offset = res.NextOffset
				if offset == 0 {
					offset = m.offsets[id] + 2000
				}
			}
			// The model reads the result back with exactly the tool the note names.
			calls = append(calls, m.read(fmt.Sprintf("call_r%d_%d", k, page+1), reader[1], s[1], offset))
		}
		if len(calls) == 0 {
			return text("budget done")
		}
		return modeltest.Turn{ToolCalls: calls}
	case strings.Contains(prompt, "contract refused"):
		if len(results) == 0 {
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{
				m.read("call_x1", "read_file", m.otherPath, 1),
				m.read("call_x2", "read_file", filepath.Join(m.home, "sessions.db"), 1),
			}}
		}
		return text("refused done")
	}
	m.t.Errorf("unexpected prompt %q", prompt)
	return text("?")
}

// bigTree writes files under dir whose lines all match MARK: a content
// search of it with limit 1500 is about 200,000 characters, over the
// per-result budget.
func bigTree(t *testing.T, dir, tag string) {
	t.Helper()
	for f := range 5 {
		var b strings.Builder
		for i := range 300 {
			fmt.Fprintf(&b, "%s MARK %s file %d line %04d %s\n", tag, tag, f, i, strings.Repeat("y", 100))
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.txt", f))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTypeScriptSDKContract(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	tmp := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	procDir, workdir, home := tmp(), tmp(), tmp()
	wsA, wsB := filepath.Join(workdir, "a"), filepath.Join(workdir, "b")
	for k := 1; k <= 3; k++ {
		bigTree(t, filepath.Join(wsA, fmt.Sprintf("big%d", k)), fmt.Sprintf("T%d", k))
	}
	bigTree(t, filepath.Join(wsB, "big"), "OTHER")

	m := &contractModel{t: t, wsA: wsA, home: home, offsets: map[string]int{}}
	srv := startModel(t, m.respond)
	script, err := filepath.Abs(filepath.Join(repoRoot, "conformance", "contract.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, agentBin)
	cmd.Dir = procDir // the agent process runs here, not in the session's cwd
	cmd.Env = baseEnv(t, append(modelEnv(srv),
		"HERMES_HOME="+home,
		"CONTRACT_WS_A="+wsA,
		"CONTRACT_WS_B="+wsB,
		"CONFORMANCE_TRANSCRIPT="+filepath.Join(t.TempDir(), "transcript.jsonl"),
	)...)
	cmd.WaitDelay = exitDeadline
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("node %s %s: %v\n%s", script, agentBin, err, out)
	} else {
		t.Logf("%s", out)
	}

	t.Run("writes serialised", func(t *testing.T) {
		if b, err := os.ReadFile(filepath.Join(wsA, "x.txt")); err != nil || string(b) != "second\n" {
			t.Errorf("x.txt = %q, %v; want the last approved content %q", b, err, "second\n")
		}
		if _, err := os.Stat(filepath.Join(procDir, "x.txt")); err == nil {
			t.Errorf("x.txt was written in the agent process's folder %s", procDir)
		}
	})

	sent := sentResults(t, srv)
	t.Run("saved results read back", func(t *testing.T) {
		results := filepath.Join(home, "results")
		for k := 1; k <= 3; k++ {
			notes := sent[fmt.Sprintf("call_s%d", k)]
			if len(notes) != 1 {
				t.Fatalf("call_s%d: %d results sent, want 1", k, len(notes))
			}
			s := contractSavedRE.FindStringSubmatch(notes[0])
			if !strings.HasPrefix(notes[0], "<persisted-output>") || s == nil || filepath.Dir(s[1]) != results {
				t.Fatalf("call_s%d: the model saw %.300q; want a note naming a file in %s", k, notes[0], results)
			}
			if !strings.Contains(notes[0], "Use the read_file tool") {
				t.Errorf("call_s%d: the note does not name read_file: %.300q", k, notes[0])
			}
			saved, err := os.ReadFile(s[1])
			if err != nil {
				t.Fatal(err)
			}
			// The pages' rows, joined without separators and compacted,
			// are the saved result.
			var joined strings.Builder
			pages := 0
			for p := 1; ; p++ {
				got := sent[fmt.Sprintf("call_r%d_%d", k, p)]
				if len(got) == 0 {
					break
				}
				pages++
				var res struct {
					Content string `json:"content"`
					Error   string `json:"error"`
				}
				if err := json.Unmarshal([]byte(got[0]), &res); err != nil || res.Error != "" || res.Content == "" {
					t.Fatalf("read call_r%d_%d: the model saw %.300q (%v); want a page of the saved result", k, p, got[0], err)
				}
				for _, row := range strings.Split(res.Content, "\n") {
					_, text, _ := strings.Cut(row, "|")
					joined.WriteString(text)
				}
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(joined.String())); err != nil || !bytes.Equal(compact.Bytes(), saved) {
				t.Errorf("saved result %d: %d pages read back with read_file; joined they are not the saved %d bytes (%v)", k, pages, len(saved), err)
			}
			if !bytes.Contains(saved, []byte(fmt.Sprintf("T%d file 4 line", k))) {
				t.Errorf("saved result %d does not hold its search's last file: %.200q", k, saved)
			}
		}
		// The first batch of reads is over the turn budget; read_file's
		// results are never saved by it.
		total := 0
		for k := 1; k <= 3; k++ {
			for _, c := range sent[fmt.Sprintf("call_r%d_1", k)] {
				total += len([]rune(c))
				if strings.Contains(c, "<persisted-output>") {
					t.Errorf("read call_r%d_1 was saved by the budget: %.200q", k, c)
				}
			}
		}
		if total <= 200_000 {
			t.Errorf("the first batch of reads is %d characters; want over the 200,000 turn budget for the test to mean anything", total)
		}
	})

	t.Run("others refused", func(t *testing.T) {
		if m.otherPath == "" || filepath.Dir(m.otherPath) != filepath.Join(home, "results") {
			t.Fatalf("session B saved no result (%q)", m.otherPath)
		}
		if _, err := os.Stat(filepath.Join(home, "sessions.db")); err != nil {
			t.Fatalf("no sessions.db to refuse: %v", err)
		}
		for _, id := range []string{"call_x1", "call_x2"} {
			got := sent[id]
			var res map[string]any
			if len(got) != 1 || json.Unmarshal([]byte(got[0]), &res) != nil || res["error"] == nil || res["content"] != nil {
				t.Errorf("%s: the model saw %q; want only a refusal", id, got)
			}
		}
	})
}
