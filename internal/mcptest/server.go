package mcptest

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EventsEnv names the environment variable holding the file the stdio
// server appends its events to.
const EventsEnv = "MCPTEST_EVENTS"

// LingerEnv names the environment variable that, when set, keeps the stdio
// server running after its input ends (a server only a signal stops).
const LingerEnv = "MCPTEST_LINGER"

// Event lines written to [Options.Events].
const (
	EventStart         = "start"          // "start <pid>", written by the stdio program
	EventExit          = "exit"           // the stdio program's input ended
	EventSlowStarted   = "slow started"   // a slow call began sleeping
	EventSlowCancelled = "slow cancelled" // a slow call saw its cancellation
	EventGrew          = "grew"           // grow added the tool extra
	EventCrash         = "crash"          // crash is about to exit the process
)

// FailMessage is the text of the fail tool's error result.
const FailMessage = "the fail tool always fails"

// Options configures [NewServer].
type Options struct {
	// Name is the server's implementation name; "" means "mcptest".
	Name string
	// Events receives one line per notable event; nil discards them. Writes
	// are serialised.
	Events io.Writer
	// Exit, when set, is what the crash tool calls (the stdio program
	// passes os.Exit); nil makes crash return an error result.
	Exit func(code int)
}

// events serialises event lines onto a writer. It is safe for concurrent
// use.
type events struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (e *events) log(format string, args ...any) {
	if e.w == nil {
		return
	}
	line := fmt.Sprintf(format, args...) + "\n"
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = io.WriteString(e.w, line)
}

// Log writes one event line to w, as the server does; the stdio program
// uses it for the events outside a tool call (start, exit).
func Log(w io.Writer, format string, args ...any) {
	(&events{w: w}).log(format, args...)
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type slowArgs struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

type bigArgs struct {
	MiB float64 `json:"mib" jsonschema:"the size of the text to return, in MiB"`
}

type envArgs struct {
	Names []string `json:"names" jsonschema:"the environment variables to report"`
}

type noArgs struct{}

// NewServer returns the test server with its tools. Every call returns a
// new, independent server; it is safe for concurrent use, as any
// [mcp.Server].
func NewServer(o Options) *mcp.Server {
	name := o.Name
	if name == "" {
		name = "mcptest"
	}
	ev := &events{w: o.Events}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Send the text back."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Report environment variables of the server's process."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in envArgs) (*mcp.CallToolResult, any, error) {
			var b strings.Builder
			for _, n := range in.Names {
				v, ok := os.LookupEnv(n)
				if !ok {
					v = "(unset)"
				}
				fmt.Fprintf(&b, "%s=%s\n", n, v)
			}
			return text(b.String()), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fail."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			r := text(FailMessage)
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleep for ms milliseconds."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
			t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
			defer t.Stop()
			ev.log("%s", EventSlowStarted)
			select {
			case <-ctx.Done():
				ev.log("%s", EventSlowCancelled)
				return nil, nil, ctx.Err()
			case <-t.C:
				return text(fmt.Sprintf("slept %d ms", in.MS)), nil, nil
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add the tool extra to this server."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "extra", Description: "A tool added at run time."},
				func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
					return text("extra works"), nil, nil
				})
			ev.log("%s", EventGrew)
			return text("added the tool extra"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Return a caption and a tiny image."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a red dot"},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Return mib MiB of text."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", int(in.MiB*(1<<20)))), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server process at once."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			if o.Exit == nil {
				r := text("crash only works in the stdio program")
				r.IsError = true
				return r, nil, nil
			}
			ev.log("%s", EventCrash)
			o.Exit(3)
			return nil, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "structured", Description: "Return structured content only.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"x": 1, "y": 2}}, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// RunStdio serves [NewServer] on the process's stdin and stdout until the
// input ends or ctx is done.
func RunStdio(ctx context.Context, o Options) error {
	return NewServer(o).Run(ctx, &mcp.StdioTransport{})
}
