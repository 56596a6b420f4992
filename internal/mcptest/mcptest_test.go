package mcptest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
)

func TestMain(m *testing.M) { os.Exit(mcptest.Main(m)) }

// lines is an io.Writer collecting event lines; waitFor blocks until one
// arrives.
type lines struct {
	mu      sync.Mutex // guards got and changed
	got     []string
	changed chan struct{}
}

func newLines() *lines { return &lines{changed: make(chan struct{})} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, strings.Split(strings.TrimSuffix(string(p), "\n"), "\n")...)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *lines) waitFor(ctx context.Context, t *testing.T, line string) {
	t.Helper()
	for {
		l.mu.Lock()
		found, ch := slices.Contains(l.got, line), l.changed
		l.mu.Unlock()
		if found {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("event %q not seen: %v", line, ctx.Err())
		}
	}
}

// connect runs srv on an in-memory transport and returns a client session
// closed when the test ends.
func connect(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// render flattens a tool result for comparison.
func render(r *mcp.CallToolResult) string {
	var parts []string
	if r.IsError {
		parts = append(parts, "isError")
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, "text:"+c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "image:"+c.MIMEType+":"+strconv.Itoa(len(c.Data)))
		}
	}
	if r.StructuredContent != nil {
		parts = append(parts, "structured")
	}
	return strings.Join(parts, " ")
}

func TestTools(t *testing.T) {
	t.Parallel()
	cs := connect(t, mcptest.NewServer(mcptest.Options{}), nil)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"add", map[string]any{"a": 2, "b": 3}, "text:5"},
		{"add", map[string]any{"a": 0.5, "b": -2}, "text:-1.5"},
		{"echo", map[string]any{"text": "hi"}, "text:hi"},
		{"fail", nil, "isError text:" + mcptest.FailMessage},
		{"slow", map[string]any{"ms": 1}, "text:slept 1 ms"},
		{"image", nil, "text:a red dot image:image/png:4"},
		{"structured", nil, "structured"},
		{"big", map[string]any{"mib": 0.5}, "text:" + strings.Repeat("x", 1<<19)},
		{"crash", nil, "isError text:crash only works in the stdio program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.name, Arguments: tc.args})
			if err != nil {
				t.Fatalf("CallTool(%s, %v): %v", tc.name, tc.args, err)
			}
			if got := render(res); got != tc.want {
				t.Errorf("CallTool(%s, %v) = %q, want %q", tc.name, tc.args, got, tc.want)
			}
		})
	}
}

func TestGrowAnnouncesTheNewTool(t *testing.T) {
	t.Parallel()
	changed := make(chan struct{}, 1)
	ev := newLines()
	cs := connect(t, mcptest.NewServer(mcptest.Options{Events: ev}), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	names := func() []string {
		t.Helper()
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		slices.Sort(out)
		return out
	}
	want := []string{"add", "big", "crash", "echo", "env", "fail", "grow", "image", "slow", "structured"}
	if diff := cmp.Diff(want, names()); diff != "" {
		t.Fatalf("tools before grow (-want +got):\n%s", diff)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "grow"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-t.Context().Done():
		t.Fatal("no tools/list_changed notification")
	}
	want = append(want, "extra")
	slices.Sort(want)
	if diff := cmp.Diff(want, names()); diff != "" {
		t.Errorf("tools after grow (-want +got):\n%s", diff)
	}
	ev.waitFor(t.Context(), t, mcptest.EventGrew)
}

func TestSlowHonoursCancellation(t *testing.T) {
	t.Parallel()
	ev := newLines()
	cs := connect(t, mcptest.NewServer(mcptest.Options{Events: ev}), nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 600_000}})
		done <- err
	}()
	ev.waitFor(t.Context(), t, mcptest.EventSlowStarted)
	cancel()
	if err := <-done; err == nil {
		t.Error("cancelled slow call returned no error")
	}
	ev.waitFor(t.Context(), t, mcptest.EventSlowCancelled)
}

// TestBuildServesStdio runs the compiled program the way the agent does and
// checks it answers, logs its events and exits when its input closes.
func TestBuildServesStdio(t *testing.T) {
	t.Parallel()
	bin := mcptest.Build(t)
	if again := mcptest.Build(t); again != bin {
		t.Errorf("second Build = %q, want the same program %q", again, bin)
	}
	events := filepath.Join(t.TempDir(), "events")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), mcptest.EventsEnv+"="+events)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", bin, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 40, "b": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(res); got != "text:42" {
		t.Errorf("add(40, 2) = %q, want text:42", got)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("server state after close = %v, want exited with status 0", cmd.ProcessState)
	}
	data, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{mcptest.EventStart + " " + strconv.Itoa(cmd.ProcessState.Pid()), mcptest.EventExit}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(string(data)), "\n")); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
