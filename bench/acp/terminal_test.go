package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// responsesBody is a Responses API request as codex sends it, with the
// given tools and, when output is not empty, the call's output.
func responsesBody(t *testing.T, tools []map[string]any, output string) []byte {
	t.Helper()
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]string{"type": "input_text", "text": "You are Codex."}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": termPrompt("seq 1 3")}}},
	}
	if output != "" {
		input = append(input,
			map[string]any{"type": "function_call", "name": "shell_command", "arguments": `{"command":"seq 1 3"}`, "call_id": "call_bench_1"},
			map[string]any{"type": "function_call_output", "call_id": "call_bench_1", "output": output})
	}
	b, err := json.Marshal(map[string]any{"model": "bench-model", "stream": true, "input": input, "tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fn(name string) map[string]any { return map[string]any{"type": "function", "name": name} }

// itemOf returns the item of the response.output_item.done event.
func itemOf(t *testing.T, events []sseEvent) map[string]any {
	t.Helper()
	for _, e := range events {
		if e.Name == "response.output_item.done" {
			return e.Data["item"].(map[string]any)
		}
	}
	t.Fatalf("no response.output_item.done in %v", events)
	return nil
}

func TestPlanResponseCallsTheShellToolCodexOffers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tools []map[string]any
		want  map[string]any // fields of the output item
	}{
		{"shell_command first", []map[string]any{fn("exec_command"), fn("shell_command"), fn("apply_patch")},
			map[string]any{"type": "function_call", "name": "shell_command", "arguments": `{"command":"seq 1 3","timeout_ms":600000}`, "call_id": "call_bench_1"}},
		{"unified exec", []map[string]any{fn("exec_command"), fn("write_stdin")},
			map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"seq 1 3","yield_time_ms":30000}`, "call_id": "call_bench_1"}},
		{"shell with argv", []map[string]any{fn("shell")},
			map[string]any{"type": "function_call", "name": "shell", "arguments": `{"command":["bash","-c","seq 1 3"],"timeout_ms":600000}`, "call_id": "call_bench_1"}},
		{"local_shell", []map[string]any{{"type": "local_shell"}},
			map[string]any{"type": "local_shell_call", "call_id": "call_bench_1", "status": "completed",
				"action": map[string]any{"type": "exec", "command": []any{"bash", "-c", "seq 1 3"}, "timeout_ms": float64(600000)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := &toolOutputs{}
			events, err := planResponse(responsesBody(t, tt.tools, ""), 1, seen)
			if err != nil {
				t.Fatal(err)
			}
			// Round-trip through JSON, as codex reads it.
			var buf bytes.Buffer
			if err := writeSSE(&buf, events); err != nil {
				t.Fatal(err)
			}
			parsed, err := readSSE(&buf)
			if err != nil {
				t.Fatal(err)
			}
			item := itemOf(t, parsed)
			for k, v := range tt.want {
				if diff := cmp.Diff(v, item[k]); diff != "" {
					t.Errorf("item[%q] (-want +got):\n%s", k, diff)
				}
			}
			if _, notes := seen.snapshot(); len(notes) > 0 {
				t.Errorf("notes %q, want none", notes)
			}
		})
	}
}

func TestPlanResponseAnswersTheOutputWithText(t *testing.T) {
	t.Parallel()
	seen := &toolOutputs{}
	events, err := planResponse(responsesBody(t, []map[string]any{fn("shell_command")}, "Exit code: 0\nOutput:\n1\n2\n3\n"), 2, seen)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range events {
		names = append(names, e.Name)
	}
	want := []string{"response.created", "response.output_item.added", "response.output_text.delta", "response.output_item.done", "response.completed"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	item := itemOf(t, events)
	content := item["content"].([]any)[0].(map[string]any)
	if item["type"] != "message" || item["role"] != "assistant" || content["type"] != "output_text" || content["text"] != doneText {
		t.Errorf("final item = %v, want an assistant message with output_text %q", item, doneText)
	}
	if events[2].Data["delta"] != doneText {
		t.Errorf("delta = %v, want %q", events[2].Data["delta"], doneText)
	}
	outputs, _ := seen.snapshot()
	if len(outputs) != 1 || !strings.Contains(outputs[0], "1\n2\n3") {
		t.Errorf("recorded outputs %q, want the command's output", outputs)
	}
}

func TestPlanResponsePollsARunningUnifiedExecSession(t *testing.T) {
	t.Parallel()
	out := "Chunk ID: 1\nWall time: 30.0 seconds\nProcess running with session ID 4242\nOutput:\n1\n"
	events, err := planResponse(responsesBody(t, []map[string]any{fn("exec_command"), fn("write_stdin")}, out), 2, &toolOutputs{})
	if err != nil {
		t.Fatal(err)
	}
	item := itemOf(t, events)
	if item["name"] != "write_stdin" || item["arguments"] != `{"chars":"","session_id":4242,"yield_time_ms":30000}` {
		t.Errorf("item = %v, want write_stdin polling session 4242", item)
	}
}

func TestPlanResponseWithoutShellToolSaysSo(t *testing.T) {
	t.Parallel()
	seen := &toolOutputs{}
	events, err := planResponse(responsesBody(t, []map[string]any{fn("apply_patch"), {"type": "web_search"}}, ""), 1, seen)
	if err != nil {
		t.Fatal(err)
	}
	if item := itemOf(t, events); item["type"] != "message" {
		t.Errorf("item = %v, want a text message", item)
	}
	if _, notes := seen.snapshot(); len(notes) != 1 || !strings.Contains(notes[0], "no shell tool") {
		t.Errorf("notes = %q, want one saying there is no shell tool", notes)
	}
	if _, err := planResponse([]byte(`{"input":`), 1, seen); err == nil {
		t.Error("a malformed request gave no error")
	}
}

func TestResponsesServerSpeaksSSE(t *testing.T) {
	t.Parallel()
	s := startResponses()
	defer s.Close()
	resp, err := http.Post(s.URL()+"/v1/responses", "application/json", bytes.NewReader(responsesBody(t, []map[string]any{fn("shell_command")}, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q, want text/event-stream", ct)
	}
	events, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 4 || events[0].Name != "response.created" || events[3].Name != "response.completed" {
		t.Fatalf("events %v, want created … completed", events)
	}
	for i, e := range events {
		if e.Data["sequence_number"] != float64(i) {
			t.Errorf("event %d has sequence_number %v", i, e.Data["sequence_number"])
		}
	}
	// codex parses response.completed into {id, usage{input_tokens, …}}.
	done := events[3].Data["response"].(map[string]any)
	usage, _ := done["usage"].(map[string]any)
	if done["id"] != "resp_bench_1" || usage["input_tokens"] == nil || usage["output_tokens"] == nil || usage["total_tokens"] == nil {
		t.Errorf("response.completed carries %v, want an id and token usage", done)
	}

	models, err := http.Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	models.Body.Close()
	other, err := http.Get(s.URL() + "/v1/telemetry")
	if err != nil {
		t.Fatal(err)
	}
	other.Body.Close()
	if models.StatusCode != 200 || other.StatusCode != 404 {
		t.Errorf("GET /v1/models = %d, /v1/telemetry = %d; want 200, 404", models.StatusCode, other.StatusCode)
	}
	if _, notes := s.seen.snapshot(); len(notes) != 1 || !strings.Contains(notes[0], "/v1/telemetry") {
		t.Errorf("notes = %q, want the unexpected request", notes)
	}
}

func TestCommandFrom(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		termPrompt("seq 1 35000"):                    "seq 1 35000",
		termPrompt(termScenarios[2].Command) + "\n…": termScenarios[2].Command,
		"no command here":                            "",
	} {
		if got := commandFrom(text); got != want {
			t.Errorf("commandFrom(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestConnCountsUpdateBytesAndAllowsPermissions(t *testing.T) {
	t.Parallel()
	fromAgent, agentWrites := io.Pipe()
	agentReads, toAgent := io.Pipe()
	var observed []string // written by the read goroutine, read after Done
	c := newConnOptions(fromAgent, toAgent, connOptions{AllowPermissions: true, OnUpdate: func(p json.RawMessage) {
		var u struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
			} `json:"update"`
		}
		_ = json.Unmarshal(p, &u)
		observed = append(observed, u.Update.SessionUpdate)
	}})
	updates := []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"content","content":{"type":"text","text":"` + strings.Repeat("x", 500) + `"}}]}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}}}`,
	}
	permission := `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"r","kind":"reject_once"},{"optionId":"always","kind":"allow_always"},{"optionId":"once","kind":"allow_once"}]}}`
	var total int64
	largest := 0
	for _, l := range updates {
		total += int64(len(l))
		largest = max(largest, len(l))
	}
	go func() {
		for _, l := range append(updates, permission) {
			io.WriteString(agentWrites, l+"\n")
		}
	}()
	reply, err := bufioLine(agentReads)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":{"outcome":{"optionId":"once","outcome":"selected"}}}`; reply != want {
		t.Errorf("permission reply = %s, want %s", reply, want)
	}
	agentWrites.Close()
	<-c.Done()
	st := c.Stats()
	if st.Updates != 3 || st.ToolUpdates != 1 || st.MessageChunks != 1 || st.UpdateBytes != total || st.MaxUpdate != largest {
		t.Errorf("stats = %+v, want 3 updates (1 tool_call_update, 1 message chunk) of %d bytes, largest %d", st, total, largest)
	}
	if diff := cmp.Diff([]string{"tool_call", "tool_call_update", "agent_message_chunk"}, observed); diff != "" {
		t.Errorf("OnUpdate saw (-want +got):\n%s", diff)
	}
}

// bufioLine reads one line from r.
func bufioLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
}

// termBench runs the terminal benchmark with --json and decodes the report.
func termBench(t *testing.T, args ...string) (termReport, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if code := runTerminal(ctx, "bench/acp", append([]string{"--json"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("terminal bench exit code %d; stderr:\n%s", code, stderr.String())
	}
	var rep termReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout.String())
	}
	return rep, stderr.String()
}

func cell(t *testing.T, rep termReport, agent, scenario string) *termCell {
	t.Helper()
	for _, c := range rep.Cells {
		if c.Agent == agent && c.Scenario == scenario {
			return c
		}
	}
	t.Fatalf("no cell for %s / %s", agent, scenario)
	return nil
}

// seqBytes is the size of the output of `seq 1 35000`.
const seqBytes = 9*2 + 90*3 + 900*4 + 9000*5 + 25001*6

func TestTerminalBenchMeasuresBothKindsOfAgent(t *testing.T) {
	t.Parallel()
	self := os.Args[0]
	rep, errOut := termBench(t, "--runs", "2", "--warmup", "0", "--scenarios", "echo,seq",
		"--env", fakeTermAgentEnv+"=ok", "--hermes", self, "--name", "fake-hermes", "--codex", self, "--name", "fake-codex")
	wantUpdates := map[string][2]float64{ // updates, tool_call_update
		"echo": {4, 2},                                                                       // tool_call, one chunk, completed, message
		"seq":  {3 + (seqBytes+fakeChunk-1)/fakeChunk, 1 + (seqBytes+fakeChunk-1)/fakeChunk}, // four 64 KiB chunks
	}
	for _, agent := range []string{"fake-hermes", "fake-codex"} {
		for sc, want := range wantUpdates {
			c := cell(t, rep, agent, sc)
			if len(c.Runs) != 2 || len(c.Failures) > 0 {
				t.Fatalf("%s %s: %d runs, failures %q; want 2 clean runs\nstderr:\n%s", agent, sc, len(c.Runs), c.Failures, errOut)
			}
			m := c.Metrics
			if m["updates"].Median != want[0] || m["tool_updates"].Median != want[1] || m["model_requests"].Median != 2 {
				t.Errorf("%s %s: updates %v, tool updates %v, model requests %v; want %v, %v, 2", agent, sc,
					m["updates"].Median, m["tool_updates"].Median, m["model_requests"].Median, want[0], want[1])
			}
			if m["wall_s"].Median <= 0 || m["rss_peak_mib"].Median <= 0 || m["rss_growth_mib"].Median < 0 {
				t.Errorf("%s %s: wall %v s, peak RSS %v MiB, growth %v MiB; want positive", agent, sc, m["wall_s"].Median, m["rss_peak_mib"].Median, m["rss_growth_mib"].Median)
			}
		}
		seq := cell(t, rep, agent, "seq").Metrics
		if seq["update_bytes"].Median <= seqBytes || seq["max_update_bytes"].Median <= fakeChunk || seq["max_update_bytes"].Median > 2*fakeChunk {
			t.Errorf("%s seq: %v bytes of updates, largest %v; want more than the %d bytes of output, largest one chunk with its escapes and envelope",
				agent, seq["update_bytes"].Median, seq["max_update_bytes"].Median, seqBytes)
		}
	}
}

func TestTerminalBenchSaysPendingWithoutTerminalTool(t *testing.T) {
	t.Parallel()
	self := os.Args[0]
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := runTerminal(ctx, "bench/acp", []string{"--runs", "3", "--warmup", "0", "--scenarios", "seq",
		"--env", fakeTermAgentEnv + "=noterminal", "--hermes", self}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "| `session/update` notifications | ≤ 50 | pending the terminal tool |") {
		t.Errorf("report does not mark the hermes column pending:\n%s", out)
	}
	if !strings.Contains(out, "no `terminal` tool (tools: read_file)") {
		t.Errorf("report does not say which tools were offered:\n%s", out)
	}
	if !strings.Contains(out, "| runs (measured / started) | | 0 / 1 |") {
		t.Errorf("want one run started (the tool is missing, more runs say nothing):\n%s", out)
	}
}

func TestParseTermArgs(t *testing.T) {
	t.Parallel()
	c, err := parseTermArgs([]string{"--hermes", "bin/hermes-acp --model x", "--codex", "/opt/codex-acp -c features.unified_exec=false", "--name", "codex shell", "--zed-terminal-output",
		"--scenarios", "seq,echo", "--command", "yes | head -n 3", "--expect", "y"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Agents) != 2 || c.Agents[0].Kind != kindHermes || c.Agents[0].Name != "hermes-acp" || c.Agents[1].Kind != kindCodex || c.Agents[1].Name != "codex shell" || c.Agents[0].ZedMeta || !c.Agents[1].ZedMeta {
		t.Errorf("agents = %+v", c.Agents)
	}
	if !strings.HasSuffix(c.Agents[0].Argv[0], "/bin/hermes-acp") || c.Agents[0].Argv[0] == "bin/hermes-acp" || c.Agents[0].Argv[2] != "x" {
		t.Errorf("hermes argv = %q, want an absolute path and its arguments", c.Agents[0].Argv)
	}
	var keys []string
	for _, s := range c.Scenarios {
		keys = append(keys, s.Key)
	}
	if diff := cmp.Diff([]string{"seq", "echo", "custom"}, keys); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	for _, bad := range [][]string{
		{},
		{"--name", "x", "--hermes", "a"},
		{"--zed-terminal-output", "--hermes", "a"},
		{"--hermes", "a", "--hermes", "b"},
		{"--hermes", "a", "--scenarios", "nope"},
		{"--hermes", "a", "--runs", "0"},
		{"--hermes", "'a"},
		{"--hermes", "a", "--env", "NOEQUALS"},
		{"--hermes", "a", "--command", "true", "--expect", "("},
	} {
		if _, err := parseTermArgs(bad, io.Discard); err == nil {
			t.Errorf("parseTermArgs(%q) gave no error", bad)
		}
	}
}

func TestRSSSamplerSeesThisProcess(t *testing.T) {
	t.Parallel()
	s := startRSSSampler(os.Getpid(), time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	if peak := s.stop(); peak < 1024 {
		t.Errorf("peak RSS of this test process = %d KiB, want at least 1 MiB", peak)
	}
}

func TestFormatTerm(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v    float64
		unit string
		want string
	}{
		{512, "B", "512 B"},
		{4096, "B", "4.00 KiB"},
		{7 << 20, "B", "7.00 MiB"},
		{1.234, "s", "1.23 s"},
		{53.21, "s", "53.2 s"},
		{7, "", "7"},
		{12.5, "MiB", "12.5 MiB"},
	} {
		if got := formatTerm(tt.v, tt.unit); got != tt.want {
			t.Errorf("formatTerm(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

// BenchmarkConnHandleHugeUpdate is the client's cost per byte of a large
// tool_call_update (codex-acp sends a command's whole output in one), so
// that the benchmark client is known not to be what a flood measures.
func BenchmarkConnHandleHugeUpdate(b *testing.B) {
	text := strings.Repeat(strings.Repeat("a", 99)+`\n`, 25_000) // 2.5 MB of output, JSON-escaped
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"content","content":{"type":"text","text":"` + text + `"}}]}}}`)
	c := &conn{w: io.Discard, pending: map[int64]chan response{}, stats: connStats{Requests: map[string]int{}}, done: make(chan struct{})}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		c.handle(line, time.Time{})
	}
	if c.stats.ToolUpdates != b.N {
		b.Fatalf("counted %d tool updates in %d lines", c.stats.ToolUpdates, b.N)
	}
}

func TestCheckRanWantsTheCommandsOutput(t *testing.T) {
	t.Parallel()
	echo, seq := termScenarios[0], termScenarios[1]
	blocked := `{"output":"","exit_code":-1,"error":"Commands cannot run in this session","status":"blocked"}`
	if err := checkRan(echo, []string{blocked}, nil); err == nil || !strings.Contains(err.Error(), "never got the output") {
		t.Errorf("a blocked command passed the echo check (err %v)", err)
	}
	if err := checkRan(echo, []string{`{"output":"hi\n","exit_code":0}`}, nil); err != nil {
		t.Errorf("hermes-style output of echo hi: %v", err)
	}
	if err := checkRan(seq, []string{"Exit code: 0\nOutput:\n1\n2\n[…]\n34999\n35000\n"}, nil); err != nil {
		t.Errorf("codex-style output of seq: %v", err)
	}
	if err := checkRan(seq, []string{`{"output":"1\n2\n\n... [OUTPUT TRUNCATED - 139000 chars omitted out of 188894 total] ...\n\n34999\n35000","exit_code":0}`, `{"output":"1\n2` + "\n[…]\n" + `\n34999\n35000","exit_code":0,"error":null}`}, nil); err != nil {
		t.Errorf("hermes-style output of seq (JSON, escaped newlines): %v", err)
	}
	if err := checkRan(seq, []string{"1\n2\n350001\n"}, nil); err == nil {
		t.Error("output without the line 35000 passed the seq check")
	}
	big := termScenarios[2]
	line := strings.Repeat("a", 100)
	if err := checkRan(big, []string{`{"output":"Total output lines: 49505\\n\\n` + line + `\\n` + line + `"}`}, nil); err != nil {
		t.Errorf("codex-style output of the 5 MB command, JSON in a string: %v", err)
	}
	if err := checkRan(big, []string{strings.Repeat("a", 99) + "\n" + strings.Repeat("a", 101)}, nil); err == nil {
		t.Error("output without a 100-character line passed the 5 MB check")
	}
	if err := checkRan(seq, nil, []string{pendingTool + ": no terminal"}); err == nil || !strings.HasPrefix(err.Error(), pendingTool) {
		t.Errorf("a missing tool gave %v, want the pending error", err)
	}
}

func TestTermTargetsAreIssue11s(t *testing.T) {
	t.Parallel()
	byKey := map[string]termMetric{}
	for _, m := range termMetrics {
		byKey[m.Key] = m
	}
	for _, tt := range []struct {
		key    string
		median float64
		want   string
	}{
		{"updates", 50, "≤ 50: met"},
		{"updates", 51, "≤ 50: **missed**"},
		{"wall_s", 1.99, "< 2 s: met"},
		{"wall_s", 2, "< 2 s: **missed**"},
		{"rss_growth_mib", 28.5, "< 30 MB: met"},      // 29.9 MB
		{"rss_growth_mib", 29, "< 30 MB: **missed**"}, // 30.4 MB
		{"update_bytes", 1e9, ""},
	} {
		c := &termCell{Metrics: map[string]summary{tt.key: {N: 1, Median: tt.median}}}
		if got := termTarget(byKey[tt.key], c); got != tt.want {
			t.Errorf("%s at %v: target cell %q, want %q", tt.key, tt.median, got, tt.want)
		}
	}
}

func TestHermesRespondCallsTerminalThenAnswers(t *testing.T) {
	t.Parallel()
	seen := &toolOutputs{}
	respond := hermesRespond(seen)
	prompt := modeltest.Message{Role: "user", Content: "<context>…</context>\n" + termPrompt("seq 1 35000")}
	tools := []modeltest.Tool{{Name: "read_file"}, {Name: "terminal"}}

	turn := respond(modeltest.Request{Messages: []modeltest.Message{{Role: "system", Content: "hermes"}, prompt}, Tools: tools})
	if len(turn.ToolCalls) != 1 || turn.ToolCalls[0].Name != "terminal" || turn.ToolCalls[0].Arguments != `{"command":"seq 1 35000"}` {
		t.Fatalf("first turn = %+v, want a terminal call with the command", turn)
	}
	call := modeltest.Message{Role: "assistant", ContentNull: true, ToolCalls: []modeltest.ToolCall{turn.ToolCalls[0]}}
	result := modeltest.Message{Role: "tool", ToolCallID: turn.ToolCalls[0].ID, Content: `{"output":"1\n…\n35000\n","exit_code":0}`}
	note := modeltest.Message{Role: "user", Content: "[a background process finished]"}
	turn = respond(modeltest.Request{Messages: []modeltest.Message{prompt, call, result, note}, Tools: tools})
	if len(turn.ToolCalls) != 0 || strings.Join(turn.Text, "") != doneText {
		t.Errorf("turn after the result = %+v, want the closing text", turn)
	}
	if outputs, _ := seen.snapshot(); len(outputs) != 1 || !strings.Contains(outputs[0], "35000") {
		t.Errorf("recorded outputs %q, want the tool result", outputs)
	}

	turn = respond(modeltest.Request{Messages: []modeltest.Message{prompt}, Tools: tools[:1]})
	_, notes := seen.snapshot()
	if len(turn.ToolCalls) != 0 || len(notes) != 1 || !strings.HasPrefix(notes[0], pendingTool) || !strings.Contains(notes[0], "tools: read_file") {
		t.Errorf("without the tool: turn %+v, notes %q; want text and a pending note naming the tools", turn, notes)
	}
}
