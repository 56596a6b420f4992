package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "codex-acp", want: []string{"codex-acp"}},
		{in: "  node  agent.js\t--acp ", want: []string{"node", "agent.js", "--acp"}},
		{in: `codex-acp -c 'openai_base_url="{base_url}"'`, want: []string{"codex-acp", "-c", `openai_base_url="{base_url}"`}},
		{in: `a "b c" d`, want: []string{"a", "b c", "d"}},
		{in: `a "say \"hi\" \$x \n"`, want: []string{"a", `say "hi" $x \n`}},
		{in: `a\ b c`, want: []string{"a b", "c"}},
		{in: `x''y ''`, want: []string{"xy", ""}},
		{in: `'it'\''s'`, want: []string{"it's"}},
		{in: "", wantErr: "empty command"},
		{in: "   ", wantErr: "empty command"},
		{in: "a 'b", wantErr: "unterminated single quote"},
		{in: `a "b`, wantErr: "unterminated double quote"},
		{in: `a \`, wantErr: "trailing backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := splitCommand(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("splitCommand(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("splitCommand(%q) error = %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("splitCommand(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestQuoteCommandRoundTrip(t *testing.T) {
	t.Parallel()
	tests := [][]string{
		{"/tmp/hermes-acp"},
		{"codex-acp", "-c", `openai_base_url="http://127.0.0.1:1/v1"`},
		{"a b", "it's", "", "$HOME", "--env=K=V"},
	}
	for _, words := range tests {
		q := quoteCommand(words)
		got, err := splitCommand(q)
		if err != nil {
			t.Fatalf("splitCommand(quoteCommand(%q) = %q) error = %v", words, q, err)
		}
		if diff := cmp.Diff(words, got); diff != "" {
			t.Errorf("round trip of %q through %q (-want +got):\n%s", words, q, diff)
		}
	}
	if got, want := quoteCommand([]string{"go", "run", "./bench/acp", "--runs", "20"}), "go run ./bench/acp --runs 20"; got != want {
		t.Errorf("quoteCommand of plain words = %q, want %q", got, want)
	}
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    config
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"--", "/bin/agent", "--acp"},
			want: config{Ours: agentSpec{Name: "agent", Argv: []string{"/bin/agent", "--acp"}}, Runs: 20, Warmup: 1, Timeout: 30 * time.Second, ExitIn: 5 * time.Second, Settle: 100 * time.Millisecond, Model: "bench-model", Prompt: "Say hello."},
		},
		{
			name: "compare splits at the second separator",
			args: []string{"--compare", "--other-no-prompt", "--other-auth", "key", "--other-env", "HOME={home}", "--", "ours", "-v", "--", "theirs", "--acp"},
			want: config{
				Ours:  agentSpec{Name: "ours", Argv: []string{"ours", "-v"}},
				Other: &agentSpec{Name: "theirs", Argv: []string{"theirs", "--acp"}, Auth: "key", Env: []string{"HOME={home}"}, NoPrompt: true},
				Runs:  20, Warmup: 1, Timeout: 30 * time.Second, ExitIn: 5 * time.Second, Settle: 100 * time.Millisecond, Model: "bench-model", Prompt: "Say hello.",
			},
		},
		{
			name: "other is shell-split and keeps a second separator for the agent",
			args: []string{"--other", "node 'my agent.js'", "--name", "mine", "--runs", "25", "--", "ours", "--", "x"},
			want: config{
				Ours:  agentSpec{Name: "mine", Argv: []string{"ours", "--", "x"}},
				Other: &agentSpec{Name: "node", Argv: []string{"node", "my agent.js"}},
				Runs:  25, Warmup: 1, Timeout: 30 * time.Second, ExitIn: 5 * time.Second, Settle: 100 * time.Millisecond, Model: "bench-model", Prompt: "Say hello.",
			},
		},
		{
			name: "same names get told apart",
			args: []string{"--compare", "--", "/a/agent", "--", "/b/agent"},
			want: config{
				Ours:  agentSpec{Name: "agent", Argv: []string{"/a/agent"}},
				Other: &agentSpec{Name: "agent (other)", Argv: []string{"/b/agent"}},
				Runs:  20, Warmup: 1, Timeout: 30 * time.Second, ExitIn: 5 * time.Second, Settle: 100 * time.Millisecond, Model: "bench-model", Prompt: "Say hello.",
			},
		},
		{
			name: "quick allows few runs",
			args: []string{"--quick", "--runs", "2", "--no-prompt", "--env", "A=b", "--", "x"},
			want: config{Ours: agentSpec{Name: "x", Argv: []string{"x"}, Env: []string{"A=b"}, NoPrompt: true}, Runs: 2, Warmup: 1, Quick: true, Timeout: 30 * time.Second, ExitIn: 5 * time.Second, Settle: 100 * time.Millisecond, Model: "bench-model", Prompt: "Say hello."},
		},
		{
			name: "settle 0 reads the RSS at once",
			args: []string{"--settle", "0", "--", "x"},
			want: config{Ours: agentSpec{Name: "x", Argv: []string{"x"}}, Runs: 20, Warmup: 1, Timeout: 30 * time.Second, ExitIn: 5 * time.Second, Model: "bench-model", Prompt: "Say hello."},
		},
		{name: "no agent", args: []string{"--runs", "20"}, wantErr: "missing agent command"},
		{name: "too few runs", args: []string{"--runs", "5", "--", "x"}, wantErr: "want at least 20"},
		{name: "zero runs even with quick", args: []string{"--quick", "--runs", "0", "--", "x"}, wantErr: "want at least 1"},
		{name: "bad env", args: []string{"--env", "NOEQUALS", "--", "x"}, wantErr: "want KEY=VALUE"},
		{name: "compare without other", args: []string{"--compare", "--", "x"}, wantErr: "--compare: want"},
		{name: "compare with empty other", args: []string{"--compare", "--", "x", "--"}, wantErr: "--compare: want"},
		{name: "compare and other", args: []string{"--compare", "--other", "y", "--", "x", "--", "z"}, wantErr: "not both"},
		{name: "other flags without other", args: []string{"--other-no-prompt", "--", "x"}, wantErr: "need a comparison agent"},
		{name: "bad other quoting", args: []string{"--other", "'y", "--", "x"}, wantErr: "unterminated single quote"},
		{name: "unknown flag", args: []string{"--nope", "--", "x"}, wantErr: "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseArgs(%q) error = %v, want one containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseArgs(%q) error = %v", tt.args, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseArgs(%q) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want summary
	}{
		{"empty", nil, summary{}},
		{"one", []float64{3}, summary{N: 1, Median: 3, P90: 3, Min: 3, Max: 3, Samples: []float64{3}}},
		{"odd count, unsorted", []float64{5, 1, 3}, summary{N: 3, Median: 3, P90: 5, Min: 1, Max: 5, Samples: []float64{5, 1, 3}}},
		{"even count averages the middle", []float64{4, 1, 3, 2}, summary{N: 4, Median: 2.5, P90: 4, Min: 1, Max: 4, Samples: []float64{4, 1, 3, 2}}},
		{
			"twenty samples: p90 is the 18th",
			[]float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
			summary{N: 20, Median: 10.5, P90: 18, Min: 1, Max: 20, Samples: []float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summarize(tt.in)); diff != "" {
				t.Errorf("summarize(%v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestBusyTime(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name      string
		spans     []span
		from, to  int
		wantBusy  time.Duration
		wantChats int
	}{
		{"nothing", nil, 0, 10, 0, 0},
		{"one request inside", []span{{at(2), at(5), true}}, 0, 10, 3 * time.Millisecond, 1},
		{"overlapping requests count once", []span{{at(2), at(6), true}, {at(4), at(8), false}}, 0, 10, 6 * time.Millisecond, 1},
		{"disjoint requests add up", []span{{at(1), at(2), true}, {at(5), at(7), true}}, 0, 10, 3 * time.Millisecond, 2},
		{"cut at the end of the window", []span{{at(8), at(20), true}}, 0, 10, 2 * time.Millisecond, 1},
		{"started before the window: not the prompt's", []span{{at(-5), at(30), true}, {at(2), at(3), true}}, 0, 10, 1 * time.Millisecond, 1},
		{"outside the window", []span{{at(-5), at(-1), true}, {at(11), at(12), true}}, 0, 10, 0, 0},
		{"contained request", []span{{at(1), at(9), true}, {at(2), at(3), true}}, 0, 10, 8 * time.Millisecond, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			busy, chats := busyTime(tt.spans, at(tt.from), at(tt.to))
			if busy != tt.wantBusy || chats != tt.wantChats {
				t.Errorf("busyTime(%s) = %v, %d, want %v, %d", tt.name, busy, chats, tt.wantBusy, tt.wantChats)
			}
		})
	}
}

func TestParseProc(t *testing.T) {
	t.Parallel()
	status := "Name:\thermes-acp\nVmPeak:\t 1300000 kB\nVmHWM:\t   19012 kB\nVmRSS:\t   18820 kB\nThreads:\t7\n"
	got, err := parseStatus([]byte(status))
	if err != nil || got != (memInfo{RSS: 18820, HWM: 19012}) {
		t.Errorf("parseStatus = %+v, %v, want {RSS:18820 HWM:19012}, nil", got, err)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\nVmHWM:\t1 kB\n", "VmRSS:\tx kB\nVmHWM:\t1 kB\n"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("parseStatus(%q) error = nil, want an error", bad)
		}
	}
	tests := []struct {
		stat string
		want int
		ok   bool
	}{
		{"123 (hermes-acp) S 45 123 45 0", 45, true},
		{"7 (a b) c)) R 1 7 7", 1, true},
		{"garbage", 0, false},
		{"9 (x) S", 0, false},
	}
	for _, tt := range tests {
		if got, ok := parsePPID([]byte(tt.stat)); got != tt.want || ok != tt.ok {
			t.Errorf("parsePPID(%q) = %d, %v, want %d, %v", tt.stat, got, ok, tt.want, tt.ok)
		}
	}
}

// bench runs the benchmark command with args and returns its exit code,
// stdout and stderr.
func bench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, "bench/acp", args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// benchJSON runs the benchmark with --json and decodes the report.
func benchJSON(t *testing.T, args ...string) (int, report, string) {
	t.Helper()
	code, out, errOut := bench(t, append([]string{"--json"}, args...)...)
	var rep report
	if code != 2 {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("bench %q: stdout is not a JSON report: %v\n%s\nstderr:\n%s", args, err, out, errOut)
		}
	}
	return code, rep, errOut
}

func metricKeys(a *agentResult) []string {
	var keys []string
	for k := range a.Metrics {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestMeasureFakeAgent(t *testing.T) {
	t.Parallel()
	agent := os.Args[0]
	code, rep, errOut := benchJSON(t, "--quick", "--runs", "2", "--env", fakeAgentEnv+"=ok", "--name", "fake", "--", agent)
	if code != 0 {
		t.Fatalf("bench exit code = %d, want 0; stderr:\n%s", code, errOut)
	}
	if len(rep.Agents) != 1 {
		t.Fatalf("report has %d agents, want 1", len(rep.Agents))
	}
	a := rep.Agents[0]
	if len(a.Failures) > 0 || len(a.NotMeasured) > 0 {
		t.Fatalf("failures %q, not measured %v; want none", a.Failures, a.NotMeasured)
	}
	want := []string{"exit_ms", "hwm_mib", "initialize_ms", "prompt1_ms", "prompt1_overhead_ms", "prompt2_ms", "prompt2_overhead_ms", "rss_mib", "session_new_ms", "tree_rss_mib"}
	if diff := cmp.Diff(want, metricKeys(a)); diff != "" {
		t.Errorf("measured metrics (-want +got):\n%s", diff)
	}
	for _, m := range a.Metrics {
		if m.N != 2 {
			t.Errorf("metric has %d samples, want 2: %+v", m.N, m)
		}
	}
	for i, r := range a.Runs {
		if r.ChatReqs != [2]int{1, 1} {
			t.Errorf("run %d: model requests per prompt = %v, want [1 1]", i, r.ChatReqs)
		}
		if r.Requests["session/request_permission"] != 2 || r.Requests["fs/read_text_file"] != 2 {
			t.Errorf("run %d: agent requests = %v, want 2 permission and 2 fs requests", i, r.Requests)
		}
		for _, p := range []string{"prompt1", "prompt2"} {
			total, over := r.Values[p+"_ms"], r.Values[p+"_overhead_ms"]
			if over <= 0 || over >= total {
				t.Errorf("run %d: %s overhead %v ms, want between 0 and the total %v ms", i, p, over, total)
			}
		}
	}
	if a.Binary == nil || a.Binary.Kind != "ELF" || a.Binary.Bytes == 0 {
		t.Errorf("binary info = %+v, want an ELF file with a size", a.Binary)
	}
	if !strings.HasPrefix(rep.Command, "bench/acp --json --quick --runs 2") {
		t.Errorf("report command = %q, want the invocation", rep.Command)
	}
}

func TestBackgroundTrafficIsNotServerTime(t *testing.T) {
	t.Parallel()
	code, rep, errOut := benchJSON(t, "--quick", "--runs", "2", "--env", fakeAgentEnv+"=background", "--", os.Args[0])
	if code != 0 || len(rep.Agents[0].Failures) > 0 {
		t.Fatalf("bench exit code = %d, failures %q, want 0 and none; stderr:\n%s", code, rep.Agents[0].Failures, errOut)
	}
	for i, r := range rep.Agents[0].Runs {
		for _, p := range []string{"prompt1", "prompt2"} {
			total, over := r.Values[p+"_ms"], r.Values[p+"_overhead_ms"]
			if over <= 0 || over >= total {
				t.Errorf("run %d: %s overhead %v ms with a request hanging since session/new, want between 0 and the total %v ms", i, p, over, total)
			}
		}
	}
}

func TestCompareMarkdown(t *testing.T) {
	t.Parallel()
	agent := os.Args[0]
	code, out, errOut := bench(t, "--quick", "--runs", "2", "--name", "fake",
		"--env", fakeAgentEnv+"=ok", "--other-env", fakeAgentEnv+"=nomodel", "--other-name", "nomodel",
		"--other", quoteCommand([]string{agent}), "--", agent)
	if code != 0 {
		t.Fatalf("bench exit code = %d, want 0; stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"### ACP agent benchmark: fake vs nomodel",
		"| metric | target | fake median | fake p90 | fake min | nomodel median | nomodel p90 | nomodel min | fake / nomodel |",
		"nomodel: first prompt: the agent made no request to the fake model",
		"- Runs: 2 measured per agent after 1 warm-up, alternating between the agents",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	row := lineWith(out, "| first prompt: agent overhead |")
	if !strings.Contains(row, "not measured: the agent made no request") || !strings.HasSuffix(row, "| n/a |") {
		t.Errorf("overhead row = %q, want ours measured, theirs not measured, ratio n/a", row)
	}
	row = lineWith(out, "| `session/new` request → reply |")
	if cells := strings.Split(row, "|"); len(cells) != 11 || !strings.HasSuffix(strings.TrimSpace(cells[9]), "×") {
		t.Errorf("session/new row = %q, want 9 cells ending in a ratio", row)
	}

	code, out, errOut = bench(t, "--quick", "--runs", "1", "--warmup", "0",
		"--env", fakeAgentEnv+"=ok", "--other-env", fakeAgentEnv+"=ok", "--other-no-prompt",
		"--compare", "--", agent, "--", agent)
	if code != 0 {
		t.Fatalf("bench exit code = %d, want 0; stderr:\n%s", code, errOut)
	}
	if row := lineWith(out, "| second prompt: agent overhead |"); !strings.Contains(row, "not measured (--no-prompt)") {
		t.Errorf("with --other-no-prompt the overhead row = %q, want it marked not measured", row)
	}
}

func lineWith(s, prefix string) string {
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

func TestAgentFailures(t *testing.T) {
	t.Parallel()
	agent := os.Args[0]
	tests := []struct {
		name        string
		args        []string
		wantCode    int
		wantMetrics []string
		wantMissing map[string]string // metric key → part of the reason
		wantStderr  string
	}{
		{
			name:        "agent crashes at start",
			args:        []string{"--env", fakeAgentEnv + "=crash"},
			wantCode:    1,
			wantMissing: map[string]string{"initialize_ms": "(agent exited: exit status 3); agent stderr: boom"},
			wantStderr:  "could not be measured",
		},
		{
			name:        "session/new needs authentication",
			args:        []string{"--env", fakeAgentEnv + "=auth"},
			wantMetrics: []string{"exit_ms", "initialize_ms"},
			wantMissing: map[string]string{
				"session_new_ms": "failed in the warm-up run: session/new: agent error -32000: Authentication required",
				"rss_mib":        "not measured: session/new failed in the warm-up run",
				"prompt2_ms":     "not measured: session/new failed in the warm-up run",
			},
		},
		{
			name:        "authenticate first",
			args:        []string{"--env", fakeAgentEnv + "=auth", "--auth", "key", "--no-prompt"},
			wantMetrics: []string{"authenticate_ms", "exit_ms", "hwm_mib", "initialize_ms", "rss_mib", "session_new_ms", "tree_rss_mib"},
			wantMissing: map[string]string{"prompt1_ms": "not measured (--no-prompt)"},
		},
		{
			name:        "wrong auth method",
			args:        []string{"--env", fakeAgentEnv + "=auth", "--auth", "nope"},
			wantMetrics: []string{"exit_ms", "initialize_ms"},
			wantMissing: map[string]string{"authenticate_ms": `unknown auth method "nope"`},
		},
		{
			name:        "missing executable",
			args:        []string{"--", "/nonexistent/agent"},
			wantCode:    1,
			wantMissing: map[string]string{"initialize_ms": "start /nonexistent/agent"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--quick", "--runs", "2"}, tt.args...)
			if !slices.Contains(args, "--") {
				args = append(args, "--", agent)
			}
			code, rep, errOut := benchJSON(t, args...)
			if code != tt.wantCode {
				t.Fatalf("bench exit code = %d, want %d; stderr:\n%s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, errOut)
			}
			a := rep.Agents[0]
			if diff := cmp.Diff(tt.wantMetrics, metricKeys(a)); diff != "" {
				t.Errorf("measured metrics (-want +got):\n%s", diff)
			}
			for k, want := range tt.wantMissing {
				if got := a.NotMeasured[k]; !strings.Contains(got, want) {
					t.Errorf("why %s is not measured = %q, want it to contain %q", k, got, want)
				}
			}
		})
	}
}

func TestNonJSONOutputIsReported(t *testing.T) {
	t.Parallel()
	code, out, errOut := bench(t, "--quick", "--runs", "1", "--warmup", "0", "--no-prompt", "--env", fakeAgentEnv+"=noisy", "--", os.Args[0])
	if code != 0 {
		t.Fatalf("bench exit code = %d, want 0; stderr:\n%s", code, errOut)
	}
	if want := `1 lines on stdout were not JSON-RPC messages, first: "hello from a sloppy agent"`; !strings.Contains(out, want) {
		t.Errorf("report lacks %q:\n%s", want, out)
	}
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
	}{
		{"small value", formatValue(3.14159, "ms"), "3.14 ms"},
		{"medium value", formatValue(42.25, "MiB"), "42.2 MiB"},
		{"large value", formatValue(2781.4, "ms"), "2781 ms"},
		{"ratio below one", formatRatio(0.0123), "0.012×"},
		{"ratio above one", formatRatio(3.34), "3.3×"},
		{"large ratio", formatRatio(1234.5), "1234×"},
		{"script size", formatBytes(991), "991 bytes"},
		{"binary size", formatBytes(45492849), "43.4 MiB (45492849 bytes)"},
		{"truncate on a rune boundary", truncate("héllo", 2), "h…"},
		{"no truncation needed", truncate("abc", 3), "abc"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	a := &agentResult{NotMeasured: map[string]string{"x": "a|b " + strings.Repeat("z", 200)}}
	cell := cellMissing(a, metric{Key: "x"})
	if !strings.HasPrefix(cell, `a\|b zz`) || !strings.HasSuffix(cell, "… (see notes)") || len(cell) > maxCell+30 {
		t.Errorf("cellMissing = %q, want the pipe escaped and the text cut", cell)
	}
}
