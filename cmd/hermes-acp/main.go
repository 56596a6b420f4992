// Command hermes-acp is a coding agent that editors start as a child process
// and talk to over stdio with the Agent Client Protocol (ACP v1).
//
// Usage:
//
//	hermes-acp [flags]              serve ACP on stdin/stdout
//	hermes-acp --setup              configure the model interactively
//	hermes-acp client [flags] -- AGENT [ARGS]
//	hermes-acp demo                 run a scripted session and print it
//	hermes-acp lint [--json] FILE…  lint files as the agent does (syntax, and Go types)
//	hermes-acp tools                list toolsets and tools
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-acp/hermes-acp/client"
	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/web"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// it comes from the module's build info.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "0.1.0-dev"
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usageText = `hermes-acp — a coding agent for editors, speaking the Agent Client Protocol on stdio.

Usage:
  hermes-acp [flags]                       serve ACP on stdin/stdout (what editors run)
  hermes-acp --setup                       configure the model interactively
  hermes-acp --version                     print the version
  hermes-acp client [flags] -- AGENT [ARGS...]
                                           drive any ACP agent headlessly (see: hermes-acp client -h)
  hermes-acp demo                          run a scripted session against hermes-acp and print it
  hermes-acp lint [--json] FILE...         report syntax and Go type errors as the agent's lint does
  hermes-acp tools                         list toolsets and tools, with availability

Flags for serving:
`

// run is main without the exit, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case terminal.SandboxCommand:
			// The terminal tool's sandbox helper: it applies Landlock and
			// becomes the command; stdout is the command's alone.
			return terminal.SandboxMain(args[1:], stderr)
		case web.DecodeCommand:
			// The web tools' decoder of fetched content (HTML, PDF), in a
			// process of its own under a memory budget; the job on stdin.
			return web.DecodeMain(stdin, stdout, stderr)
		case "client":
			return client.Main(context.Background(), args[1:], stdin, stdout, stderr, buildVersion())
		case "demo":
			self, err := os.Executable()
			if err != nil {
				fmt.Fprintf(stderr, "hermes-acp demo: %v\n", err)
				return 1
			}
			return client.DemoMain(context.Background(), args[1:], self, stdout, stderr, buildVersion())
		case "lint":
			return runLint(args[1:], stdout, stderr)
		case "tools":
			return runToolsCmd(args[1:], stdout, stderr)
		case "help":
			args = []string{"-h"}
		}
	}
	fs := flag.NewFlagSet("hermes-acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	var o serveOptions
	showVersion := fs.Bool("version", false, "print the version and exit")
	setup := fs.Bool("setup", false, "configure the model interactively (writes $HERMES_HOME/config.yaml) and exit")
	fs.StringVar(&o.model, "model", "", "model name, or script:FILE for the scripted provider (overrides HERMES_MODEL and model.default)")
	fs.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API base URL (overrides OPENAI_BASE_URL and model.base_url)")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error (logs go to stderr)")
	fs.StringVar(&o.logFile, "log-file", "", "also write logs to this file")
	fs.BoolVar(&o.debugRPC, "debug-rpc", false, "log every JSON-RPC line (at debug level)")
	fs.StringVar(&o.record, "record", "", "write the live model conversation to FILE as a replayable script")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hermes-acp: unexpected argument %q (see hermes-acp -h)\n", fs.Arg(0))
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "hermes-acp %s\n", buildVersion())
		return 0
	}
	if *setup {
		return runSetup(stdin, stdout, stderr, os.Getenv)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, o, stdin, stderr)
}

// newLogger builds the stderr logger (and the --log-file copy).
func newLogger(level, file string, stderr io.Writer) (*slog.Logger, func(), error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	w := stderr
	closeFn := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		w = io.MultiWriter(stderr, f)
		closeFn = func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv})), closeFn, nil
}

// shutdownGrace bounds the clean-up after stdin closes.
const shutdownGrace = 800 * time.Millisecond
