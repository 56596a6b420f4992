package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent/internal/compress"
	"github.com/hermes-acp/hermes-acp/model"
)

// command is a slash command the user can type.
type command struct {
	name, desc, hint string
	// immediate commands run at once, even while a turn runs; the others
	// wait in the session's queue like prompts.
	immediate bool
	run       func(ctx context.Context, s *Session, arg string) commandResult
}

// commandResult ends the command's prompt, or turns it into a prompt for the
// model (Rewrite).
type commandResult struct {
	Stop    acp.StopReason
	Rewrite string
}

func done() commandResult { return commandResult{Stop: acp.StopEndTurn} }

// allCommands returns the command table (a fresh copy: it is tiny).
func allCommands() []command {
	return []command{
		{name: "help", desc: "Show the available commands", immediate: true, run: cmdHelp},
		{name: "model", desc: "Show or switch the model", hint: "model name to switch to", immediate: true, run: cmdModel},
		{name: "mode", desc: "Show or switch the edit approval mode", hint: "default | accept_edits | dont_ask", immediate: true, run: cmdMode},
		{name: "tools", desc: "List the tools this session offers the model", immediate: true, run: cmdTools},
		{name: "context", desc: "Show conversation size and context-window use", immediate: true, run: cmdContext},
		{name: "reset", desc: "Clear the conversation history of this session", run: cmdReset},
		{name: "compact", desc: "Summarise the middle of the conversation to free context", hint: "what the summary should focus on", run: cmdCompact},
		{name: "steer", desc: "Guide the running turn (or re-run the interrupted prompt with guidance)", hint: "guidance for the active turn", immediate: true, run: cmdSteer},
		{name: "queue", desc: "Run a prompt after the current turn", hint: "prompt to run next", run: cmdQueue},
		{name: "rewind", desc: "List this session's checkpoints, or restore the files to before turn N", hint: "turn number", run: cmdRewind}, // agent/rewind.go
		{name: "undo", desc: "Restore the files to before the last turn that changed them", run: cmdUndo},
		{name: "allowlist", desc: "List the command allowlist, or remove an entry", hint: "remove N", immediate: true, run: cmdAllowlist},
		{name: "version", desc: "Show the hermes-acp version", immediate: true, run: cmdVersion},
	}
}

func findCommand(name string) *command {
	for _, c := range allCommands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// commandList is the available_commands_update payload.
func commandList() []acp.AvailableCommand {
	cmds := allCommands()
	out := make([]acp.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := acp.AvailableCommand{Name: c.name, Description: c.desc}
		if c.hint != "" {
			ac.Input = &acp.AvailableCommandInput{Hint: c.hint}
		}
		out = append(out, ac)
	}
	return out
}

// parseCommand recognises a text-only prompt starting with "/name".
func parseCommand(blocks []acp.ContentBlock) (name, arg string, ok bool) {
	if len(blocks) == 0 {
		return "", "", false
	}
	for _, b := range blocks {
		if b.Text == nil {
			return "", "", false
		}
	}
	text := strings.TrimSpace(promptText(blocks))
	if !strings.HasPrefix(text, "/") || len(text) < 2 {
		return "", "", false
	}
	name, arg, _ = strings.Cut(text[1:], " ")
	if i := strings.IndexByte(name, '\n'); i >= 0 {
		name, arg = name[:i], strings.TrimSpace(name[i+1:]+" "+arg)
	}
	return name, strings.TrimSpace(arg), true
}

func cmdHelp(_ context.Context, s *Session, _ string) commandResult {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range allCommands() {
		if c.hint != "" {
			fmt.Fprintf(&b, "- `/%s <%s>` — %s\n", c.name, c.hint, c.desc)
		} else {
			fmt.Fprintf(&b, "- `/%s` — %s\n", c.name, c.desc)
		}
	}
	b.WriteString("\nAny other text (including unknown `/commands`) goes to the model.")
	s.sendText(b.String())
	return done()
}

func cmdModel(_ context.Context, s *Session, arg string) commandResult {
	s.mu.Lock()
	current := s.modelName
	s.mu.Unlock()
	choices := modelChoices(current, s.a.modelSetup().Choices)
	if arg == "" {
		s.sendText(fmt.Sprintf("Model: `%s`. Available: %s.", current, quoteAll(choices)))
		return done()
	}
	if err := s.setModel(arg); err != nil {
		s.sendText(fmt.Sprintf("Cannot switch: %v. Add models under `model.choices` in $HERMES_HOME/config.yaml.", err))
		return done()
	}
	s.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	s.sendText(fmt.Sprintf("Switched the model to `%s`.", arg))
	return done()
}

func cmdMode(_ context.Context, s *Session, arg string) commandResult {
	if arg == "" {
		s.sendText(fmt.Sprintf("Mode: `%s`. Available: `default` (ask before edits), `accept_edits` (auto-allow workspace and /tmp edits), `dont_ask` (auto-allow every allowed edit; sensitive paths still ask), `plan` (read-only until you approve the model's plan).", s.Mode()))
		return done()
	}
	if !validMode(arg) {
		s.sendText(fmt.Sprintf("Unknown mode `%s`. Available: `default`, `accept_edits`, `dont_ask`, `plan`.", arg))
		return done()
	}
	s.setMode(arg, true)
	s.sendText(fmt.Sprintf("Switched to mode `%s`.", arg))
	return done()
}

func cmdTools(_ context.Context, s *Session, _ string) commandResult {
	defs := s.toolDefs()
	if len(defs) == 0 {
		s.sendText("This session offers no tools.")
		return done()
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	sort.Strings(names)
	s.sendText(fmt.Sprintf("%d tools: %s.", len(names), quoteAll(names)))
	return done()
}

func cmdContext(ctx context.Context, s *Session, _ string) commandResult {
	setup := s.a.modelSetup()
	tools := s.toolDefs()
	if !s.awaitSkillsIndex(ctx) { // the system prompt's size counts
		return commandResult{Stop: acp.StopCancelled}
	}
	s.mu.Lock()
	counts := map[model.Role]int{}
	for _, m := range s.history {
		counts[m.Role]++
	}
	n := len(s.history)
	name := s.modelName
	last := s.lastUsage
	tokens := s.contextTokens(tools)
	compressed := ""
	if s.comp.Active() {
		compressed = fmt.Sprintf("\nCompressed: the model sees a summary instead of %d earlier messages.", s.comp.Tail-s.comp.Head)
	}
	s.mu.Unlock()
	size, threshold := contextBudget(setup)
	auto := fmt.Sprintf("compression at ~%d tokens (%.0f%%)", threshold, 100*float64(threshold)/float64(size))
	if setup.CompressionOff {
		auto = "automatic compression off"
	}
	provider := "none"
	if r, ok := setup.Provider.(interface{ NameFor(string) string }); ok { // a model.Router, maybe recording
		provider = r.NameFor(name)
	} else if setup.Provider != nil {
		provider = setup.Provider.Name()
	}
	cache := ""
	if r := last.CacheHitRatio(); r >= 0 && (last.CachedReadTokens > 0 || last.CacheWriteTokens > 0) {
		cache = fmt.Sprintf("\nPrompt cache (last request): %.0f%% of %d input tokens read from the cache, %d written.", 100*r, last.InputTokens, last.CacheWriteTokens)
	}
	term := s.goTypesStatus() + s.terminalStatus(ctx) // the Go type check (agent/gotypes.go); terminal backends (issue 18)
	allow := allowlistContext(s)                      // command approvals (issue 25)
	blocked := skillsBlockedContext(s)
	s.sendText(fmt.Sprintf("Conversation: %d messages (%d user, %d assistant, %d tool).\nModel: `%s` (%s).\nContext: ~%d tokens of %d (%.1f%%); %s.%s%s%s%s%s",
		n, counts[model.RoleUser], counts[model.RoleAssistant], counts[model.RoleTool], name, provider, tokens, size, 100*float64(tokens)/float64(size), auto, compressed, cache, allow, blocked, term))
	return done()
}

func cmdReset(_ context.Context, s *Session, _ string) commandResult {
	s.mu.Lock()
	s.plan = nil
	s.comp = compress.State{}
	s.ctxTokens, s.ctxAt = 0, 0
	s.mu.Unlock()
	s.resetStored() // clears the history
	if s.reg != nil {
		// Tool state (read dedup, loop counters) refers to the old context.
		if err := s.bindTools(); err != nil {
			s.a.log.Warn("rebind tools after reset", "session", s.id, "error", err)
		}
	}
	s.sendText("Conversation cleared.")
	return done()
}

func cmdCompact(ctx context.Context, s *Session, arg string) commandResult {
	setup := s.a.modelSetup()
	if setup.Provider == nil {
		s.sendText(noModelText(setup.Problem))
		return done()
	}
	before, _, err := s.compact(ctx, setup, arg, true) // on success compact reports the sizes
	switch {
	case errors.Is(err, errNothingToCompress):
		s.sendText(fmt.Sprintf("Nothing to compress yet (~%d tokens): the conversation is only its first exchange and recent messages.", before))
	case err != nil:
		if ctx.Err() != nil {
			return commandResult{Stop: acp.StopCancelled}
		}
		s.sendText(fmt.Sprintf("Could not compress the conversation: %v", err))
	}
	return done()
}

func cmdSteer(_ context.Context, s *Session, arg string) commandResult {
	if arg == "" {
		s.sendText("Usage: `/steer <guidance>`.")
		return done()
	}
	s.mu.Lock()
	running := s.queue.Running()
	interrupted := s.interrupted
	if running {
		s.steer = append(s.steer, arg)
	} else {
		s.interrupted = ""
	}
	s.mu.Unlock()
	if running {
		s.sendText("⏩ Steer queued for the active turn: " + arg)
		return done()
	}
	if interrupted != "" {
		return commandResult{Rewrite: interrupted + "\n\nUser correction/guidance after interrupt: " + arg}
	}
	return commandResult{Rewrite: arg}
}

func cmdQueue(_ context.Context, s *Session, arg string) commandResult {
	if arg == "" {
		s.sendText("Usage: `/queue <prompt>`.")
		return done()
	}
	return commandResult{Rewrite: arg}
}

func cmdVersion(_ context.Context, s *Session, _ string) commandResult {
	s.sendText("hermes-acp " + s.a.opts.Version)
	return done()
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}
