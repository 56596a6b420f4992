package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// minRuns is the least number of measured runs without --quick.
const minRuns = 20

// agentSpec describes one agent to measure.
type agentSpec struct {
	Name     string   // label in the report
	Argv     []string // command and arguments, placeholders unexpanded
	Auth     string   // authenticate methodId; empty skips authenticate
	Env      []string // extra KEY=VALUE, placeholders unexpanded
	NoPrompt bool     // skip the prompt turns
}

// config is the parsed command line.
type config struct {
	Ours    agentSpec
	Other   *agentSpec // nil without a comparison
	Runs    int
	Warmup  int
	Quick   bool
	JSON    bool
	Timeout time.Duration // per protocol step
	ExitIn  time.Duration // limit for exiting after stdin closes
	Settle  time.Duration // quiet time after session/new before RSS is read
	Model   string        // HERMES_MODEL
	Prompt  string        // text of the prompts
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

const usageText = `Measures an ACP agent: start to initialize reply, session/new, RSS, prompt-turn overhead.

Usage:
  go run ./bench/acp [flags] -- AGENT [ARGS...]
  go run ./bench/acp [flags] --other 'OTHER [ARGS...]' -- AGENT [ARGS...]
  go run ./bench/acp [flags] --compare -- AGENT [ARGS...] -- OTHER [ARGS...]

Flags without a prefix apply to AGENT ("ours"); --other-* flags to OTHER ("theirs").
In --env values and command arguments, {home}, {workspace} and {base_url} stand for
the run's home folder, workspace folder and the fake model server's base URL.

Flags:
`

// parseArgs parses the command line. Usage and flag errors are written to
// stderr.
func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench/acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	c := config{}
	var env, otherEnv stringList
	var otherCmd, otherName, otherAuth string
	var compare, otherNoPrompt bool
	fs.IntVar(&c.Runs, "runs", minRuns, fmt.Sprintf("measured runs per agent (at least %d unless --quick)", minRuns))
	fs.IntVar(&c.Warmup, "warmup", 1, "uncounted warm-up runs per agent")
	fs.BoolVar(&c.Quick, "quick", false, fmt.Sprintf("allow fewer than %d runs (smoke tests; medians are then unreliable)", minRuns))
	fs.BoolVar(&c.JSON, "json", false, "print JSON instead of Markdown")
	fs.DurationVar(&c.Timeout, "timeout", 30*time.Second, "limit for each protocol step")
	fs.DurationVar(&c.ExitIn, "exit-timeout", 5*time.Second, "limit for the agent to exit after its stdin closes")
	fs.DurationVar(&c.Settle, "settle", 100*time.Millisecond, "read the RSS after session/new once the agent has sent nothing for this long (what it does after the reply counts; at most 10 times as long); 0: at once")
	fs.StringVar(&c.Model, "model", "bench-model", "model name given to the agent as HERMES_MODEL")
	fs.StringVar(&c.Prompt, "prompt", "Say hello.", "text of each prompt")
	fs.StringVar(&c.Ours.Name, "name", "", "label of AGENT in the report (default: its file name)")
	fs.StringVar(&c.Ours.Auth, "auth", "", "call authenticate with this methodId before session/new")
	fs.Var(&env, "env", "extra KEY=VALUE for AGENT (repeatable)")
	fs.BoolVar(&c.Ours.NoPrompt, "no-prompt", false, "do not measure prompt turns of AGENT")
	fs.StringVar(&otherCmd, "other", "", "comparison agent command, shell-quoted in one argument")
	fs.BoolVar(&compare, "compare", false, `split the command after "--" at the next "--" into AGENT and OTHER`)
	fs.StringVar(&otherName, "other-name", "", "label of OTHER in the report (default: its file name)")
	fs.StringVar(&otherAuth, "other-auth", "", "call authenticate with this methodId on OTHER before session/new")
	fs.Var(&otherEnv, "other-env", "extra KEY=VALUE for OTHER (repeatable)")
	fs.BoolVar(&otherNoPrompt, "other-no-prompt", false, "do not measure prompt turns of OTHER (for agents that need their own model)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return config{}, errors.New(`missing agent command: put it after "--"`)
	}
	switch {
	case c.Runs < 1:
		return config{}, fmt.Errorf("--runs %d: want at least 1", c.Runs)
	case c.Runs < minRuns && !c.Quick:
		return config{}, fmt.Errorf("--runs %d: want at least %d for stable medians (or add --quick)", c.Runs, minRuns)
	case c.Warmup < 0:
		return config{}, fmt.Errorf("--warmup %d: want 0 or more", c.Warmup)
	case c.Timeout <= 0:
		return config{}, fmt.Errorf("--timeout %v: want a positive duration", c.Timeout)
	case c.ExitIn <= 0:
		return config{}, fmt.Errorf("--exit-timeout %v: want a positive duration", c.ExitIn)
	}
	for _, kv := range slices.Concat(env, otherEnv) {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return config{}, fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
	}

	var otherArgv []string
	switch {
	case compare && otherCmd != "":
		return config{}, errors.New("use either --compare or --other, not both")
	case compare:
		i := slices.Index(rest, "--")
		if i < 0 || i == len(rest)-1 {
			return config{}, errors.New(`--compare: want "-- AGENT [ARGS...] -- OTHER [ARGS...]"`)
		}
		rest, otherArgv = rest[:i], rest[i+1:]
	case otherCmd != "":
		var err error
		if otherArgv, err = splitCommand(otherCmd); err != nil {
			return config{}, fmt.Errorf("--other: %w", err)
		}
	}
	if len(rest) == 0 {
		return config{}, errors.New("missing agent command")
	}
	c.Ours.Argv = rest
	c.Ours.Env = env
	if c.Ours.Name == "" {
		c.Ours.Name = filepath.Base(rest[0])
	}
	if otherArgv == nil {
		if otherName != "" || otherAuth != "" || len(otherEnv) > 0 || otherNoPrompt {
			return config{}, errors.New("--other-* flags need a comparison agent (--other or --compare)")
		}
		return c, nil
	}
	c.Other = &agentSpec{Name: otherName, Argv: otherArgv, Auth: otherAuth, Env: otherEnv, NoPrompt: otherNoPrompt}
	if c.Other.Name == "" {
		c.Other.Name = filepath.Base(otherArgv[0])
	}
	if c.Other.Name == c.Ours.Name {
		c.Other.Name += " (other)"
	}
	return c, nil
}

// splitCommand splits a command line as a POSIX shell would split words:
// blanks separate words, single quotes keep everything literally, double
// quotes keep everything but \", \\, \$ and \` escapes, and a backslash
// outside quotes escapes the next character. It does no expansion.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("split %q: unterminated single quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("split %q: unterminated double quote", s)
			}
			inWord = true
		case ch == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("split %q: trailing backslash", s)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("split %q: empty command", s)
	}
	return words, nil
}

// quoteCommand joins words into a command line that splitCommand (and a
// POSIX shell) splits back into the same words.
func quoteCommand(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quoteWord(w)
	}
	return strings.Join(out, " ")
}

func quoteWord(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%{}", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
