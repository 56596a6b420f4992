package main_test

// Issue 26's acceptance for bounded parsing, through the real binary with
// the script model: PDF decompression bombs served on loopback are cut at
// the text limit or refused at the decoder's memory budget (the decoder
// runs in a child process, web.DecodeCommand), the agent's own peak RSS
// stays under 300 MB, and no saved result is over the results limit.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/internal/testpdf"
	"github.com/hermes-acp/hermes-acp/registry"
)

func TestPDFBombsAreBounded(t *testing.T) {
	t.Parallel()
	textBomb := testpdf.Bomb(testpdf.Text, 1024, 8)  // ~5 MB: 8 GiB of text operators once inflated
	tokenBomb := testpdf.Bomb(testpdf.Token, 64, 64) // one 4 GiB string token
	t.Logf("bombs: %d and %d bytes", len(textBomb), len(tokenBomb))
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		switch r.URL.Path {
		case "/text.pdf":
			w.Write(textBomb)
		case "/token.pdf":
			w.Write(tokenBomb)
		default:
			http.NotFound(w, r)
		}
	}))
	defer page.Close()

	script := fmt.Sprintf(`replies:
  - tool_calls:
      - name: web_extract
        arguments: {urls: [%q]}
  - expect: {role: tool, contains: 'The text stops here: the text is longer than 4 MiB'}
    tool_calls:
      - name: web_extract
        arguments: {urls: [%q]}
  - expect: {role: tool, contains: 'memory budget'}
    text: "bounded"
`, page.URL+"/text.pdf", page.URL+"/token.pdf")
	dir := t.TempDir()
	scriptPath := filepath.Join(dir, "script.yaml")
	home := t.TempDir()
	for name, body := range map[string]string{scriptPath: script, filepath.Join(home, "config.yaml"): "web:\n  allow_private_urls: true\n"} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a := startRaw(t, []string{"--model", "script:" + scriptPath}, append(baseEnv(t), "HERMES_HOME="+home))
	a.initialize(t)
	sid := a.newSession(t)
	start := time.Now()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	msgs := a.result(t, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "read them"}}}, &res)
	t.Logf("the turn took %s", time.Since(start))
	if res.StopReason != "end_turn" || agentText(msgs) != "bounded" {
		t.Errorf("turn ended %q saying %q, want the script's end (each result as expected)", res.StopReason, agentText(msgs))
	}
	var statuses []string
	for _, m := range msgs {
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Status        string `json:"status"`
			} `json:"update"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Update.SessionUpdate == "tool_call_update" && p.Update.Status != "" && p.Update.Status != "pending" && p.Update.Status != "in_progress" {
			statuses = append(statuses, p.Update.Status)
		}
	}
	if strings.Join(statuses, " ") != "completed failed" {
		t.Errorf("the calls ended %v, want the cut text completed and the refused token failed", statuses)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", a.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	hwm := 0
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			hwm, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	t.Logf("the agent's peak RSS (VmHWM): %.1f MiB", float64(hwm)/1024)
	if hwm == 0 || hwm > 300*1000 {
		t.Errorf("the agent's peak RSS is %d kB, want under 300 MB", hwm)
	}
	entries, _ := os.ReadDir(filepath.Join(home, "results"))
	if len(entries) == 0 {
		t.Error("no saved result: the cut text's full version should be saved for read_file")
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Size() > registry.DefaultMaxSavedFileBytes {
			t.Errorf("saved result %s is %d bytes, over the %d-byte limit", e.Name(), fi.Size(), registry.DefaultMaxSavedFileBytes)
		} else if err == nil {
			t.Logf("saved %s: %d bytes", e.Name(), fi.Size())
		}
	}
}
