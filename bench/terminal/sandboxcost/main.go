// Command sandboxcost measures what the terminal sandbox adds to a command
// on this machine (issue #24): the same commands through terminal.Run on a
// terminal.Local without a sandbox (a plain fork and exec of bash, as
// before the sandbox), with terminal.sandbox: off (the session's runner,
// unconfined), under Landlock alone (the fallback) and in the namespace
// sandbox (the session's sandbox server, already started). Each run is one
// command from Start to the end of its output; the modes take turns within
// each round, so that the machine's noise falls on all of them alike. It
// reports per command and mode the median and the 90th percentile of the
// runs and the added cost: the median of the per-round differences to the
// plain local run. Separately it times a session's first command, which
// starts the session's sandbox server.
//
// Usage:
//
//	go run ./bench/terminal/sandboxcost [-runs N] [-starts N] [-cmd COMMAND]...
//
// The program is its own sandbox helper (it answers `sandbox-exec` as
// hermes-acp does) unless -helper names another binary that has that
// subcommand (hermes-acp: then the session's start and the server's
// memory are the agent's). It also reports the resident memory (VmRSS) of
// the namespace session's sandbox server. Commands run in a temporary workspace with the
// environment of this process (its secrets removed as in the agent).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/terminal"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// commands are the default commands: issue #24's three.
var commands = []string{"echo hi", "seq 1 35000", "go version"}

type mode struct {
	name string
	env  terminal.Environment
	ss   *terminal.SandboxSession
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == terminal.SandboxCommand {
		os.Exit(terminal.SandboxMain(os.Args[2:], os.Stderr))
	}
	helper := flag.String("helper", "", "the binary whose sandbox-exec runs the sandbox server (default: this program)")
	runs := flag.Int("runs", 41, "runs of each command in each mode (at least 30 for the issue's medians)")
	starts := flag.Int("starts", 15, "sessions whose first command (the sandbox server's start) is timed")
	var cmds multi
	flag.Var(&cmds, "cmd", "a command to measure (repeatable; default: echo hi, seq 1 35000, go version)")
	flag.Parse()
	if len(cmds) == 0 {
		cmds = commands
	}
	if err := run(os.Stdout, *helper, *runs, *starts, cmds); err != nil {
		fmt.Fprintf(os.Stderr, "sandboxcost: %v\n", err)
		os.Exit(1)
	}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func run(w io.Writer, exe string, runs, starts int, cmds []string) error {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	ws, err := os.MkdirTemp("", "sandboxcost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	newSandbox := func(unconfined, landlock bool) *terminal.Sandbox {
		sb := &terminal.Sandbox{Exe: exe, Unconfined: unconfined, LandlockOnly: landlock}
		home, _ := os.UserHomeDir()
		for _, c := range workspace.CredentialPlaces(home) {
			if home != "" && strings.HasPrefix(c.Path, home+string(os.PathSeparator)) {
				sb.Credentials = append(sb.Credentials, c.Path)
			} else {
				sb.Hidden = append(sb.Hidden, c.Path)
			}
		}
		return sb
	}
	modes := []*mode{{name: "local, no sandbox", env: &terminal.Local{}}}
	for _, m := range []struct {
		name                 string
		unconfined, landlock bool
	}{{"sandbox: off", true, false}, {"landlock", false, true}, {"namespaces", false, false}} {
		ss := newSandbox(m.unconfined, m.landlock).NewSession([]string{ws})
		defer ss.Close()
		modes = append(modes, &mode{name: m.name, env: &terminal.Local{Sandbox: ss}, ss: ss})
	}
	ns := modes[len(modes)-1]
	if c := ns.ss.Confinement(); c.Kind != terminal.KindNamespaces {
		return fmt.Errorf("the namespace sandbox is not available here: %s", c.Summary())
	}

	fmt.Fprintf(w, "sandboxcost: %d runs per command and mode, modes in turn; helper %s; %s\n\n", runs, exe, time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintln(w, "| command | mode | median | p90 | added (median of per-round differences to local) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range cmds {
		// One warm-up run each: the page cache, the shell, go's caches.
		for _, m := range modes {
			if _, err := once(m.env, ws, c); err != nil {
				return fmt.Errorf("%s (%s): %w", c, m.name, err)
			}
		}
		times := make([][]time.Duration, len(modes))
		for r := range runs {
			for i := range modes {
				j := (i + r) % len(modes) // rotate who goes first
				d, err := once(modes[j].env, ws, c)
				if err != nil {
					return fmt.Errorf("%s (%s): %w", c, modes[j].name, err)
				}
				times[j] = append(times[j], d)
			}
		}
		for i, m := range modes {
			added := "—"
			if i > 0 {
				diffs := make([]time.Duration, runs)
				for r := range runs {
					diffs[r] = times[i][r] - times[0][r]
				}
				added = ms(median(diffs))
			}
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", c, m.name, ms(median(times[i])), ms(pct(times[i], 90)), added)
		}
	}

	fmt.Fprintf(w, "\nThe sandbox servers' resident memory after these runs (RssFile: pages of the binary, shared with every process that maps it): %s\n", serverRSS())

	// A session's first command: the sandbox server starts.
	var first, later []time.Duration
	for range starts {
		ss := newSandbox(false, false).NewSession([]string{ws})
		l := &terminal.Local{Sandbox: ss}
		d, err := once(l, ws, "true")
		if err == nil {
			var d2 time.Duration
			d2, err = once(l, ws, "true")
			later = append(later, d2)
		}
		ss.Close()
		if err != nil {
			return fmt.Errorf("first command: %w", err)
		}
		first = append(first, d)
	}
	fmt.Fprintf(w, "\nA session's first command (`true`; starts the sandbox server), %d sessions: median %s, p90 %s; its second: median %s\n",
		starts, ms(median(first)), ms(pct(first, 90)), ms(median(later)))
	return nil
}

// serverRSS lists the resident memory (VmRSS, RssAnon, RssFile) of this
// process's children that are sandbox servers.
func serverRSS() string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) || !strings.Contains(string(cmdline), terminal.SandboxCommand+"\x00--server") {
			continue
		}
		status, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for _, l := range strings.Split(string(status), "\n") {
			for _, k := range []string{"VmRSS", "RssAnon", "RssFile"} {
				if v, ok := strings.CutPrefix(l, k+":"); ok {
					out = append(out, k+" "+strings.TrimSpace(v))
				}
			}
		}
	}
	if len(out) == 0 {
		return "none found"
	}
	return strings.Join(out, ", ")
}

// once runs command in env to its end and times it.
func once(env terminal.Environment, dir, command string) (time.Duration, error) {
	t0 := time.Now()
	res, err := terminal.Run(context.Background(), env, terminal.Spec{Command: command, Dir: dir}, terminal.RunOptions{Timeout: time.Minute})
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if res.ExitCode != 0 {
		return 0, fmt.Errorf("exit code %d: %s", res.ExitCode, res.Output)
	}
	return d, nil
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

// pct is the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return s[i-1]
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
