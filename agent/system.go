package agent

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/hermes-acp/hermes-acp/toolsets"
)

// toolNames resolves the configured toolsets, plus the session's MCP
// toolsets, against the session's registry.
func (s *Session) toolNames() []string {
	if s.reg == nil {
		return nil
	}
	snap := s.reg.Snapshot()
	enabled := s.a.opts.Toolsets
	// Plan mode's exit is part of every session; clarify of those whose
	// editor shows forms (as hermes's adapter adds its toolset).
	extra := []string{planToolset}
	forms := s.client != nil && s.client.Capabilities().FormElicitation()
	if forms {
		extra = append(extra, clarifyName)
	}
	for _, ts := range extra {
		if !slices.Contains(enabled, ts) {
			enabled = append(slices.Clip(enabled), ts)
		}
	}
	for _, ts := range snap.Toolsets() {
		if strings.HasPrefix(ts, "mcp-") && !slices.Contains(enabled, ts) {
			enabled = append(slices.Clip(enabled), ts)
		}
	}
	names, warnings := toolsets.Select(enabled, s.a.opts.DisabledToolsets, snap)
	for _, w := range warnings {
		s.a.log.Debug("toolsets", "warning", w)
	}
	if !forms { // an editor without forms cannot be asked, whatever the toolsets say
		names = slices.DeleteFunc(names, func(n string) bool { return n == clarifyName })
	}
	return names
}

// awaitSkillsIndex waits, with no lock held, for the skill index the
// system prompt shows (scanned as the session opened); false when ctx
// ended first. Every caller of systemPrompt waits for it first.
func (s *Session) awaitSkillsIndex(ctx context.Context) bool {
	_, ok := s.skillsIndex.wait(ctx)
	return ok
}

// systemPrompt describes the agent's situation to the model; s.mu is held,
// so it waits for nothing (awaitSkillsIndex waited for the skill index).
func (s *Session) systemPrompt() string {
	var b strings.Builder
	b.WriteString("You are Hermes, a coding agent working inside the user's code editor through the Agent Client Protocol. ")
	b.WriteString("You help with software engineering tasks in the user's workspace: reading and changing code, explaining it, and fixing problems.\n\n")
	fmt.Fprintf(&b, "Workspace root: %s\n", s.cwd)
	if len(s.dirs) > 0 {
		fmt.Fprintf(&b, "Additional workspace roots: %s\n", strings.Join(s.dirs, ", "))
	}
	fmt.Fprintf(&b, "Operating system: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "Today's date: %s\n\n", s.a.now().Format("2006-01-02"))
	b.WriteString("Guidelines:\n" +
		"- Use the tools to look at files before you change them; paths may be relative to the workspace root. Files outside the workspace roots cannot be read or written.\n" +
		"- Prefer `patch` for targeted edits and `write_file` for new files. The user sees every edit as a diff and may reject it; when an edit is denied, do not retry it unchanged — ask what the user wants instead.\n" +
		"- After each edit the tool result includes a `lint` object; if it reports errors your edit introduced, fix them.\n" +
		"- Keep answers short and concrete; show code only when it helps. Use Markdown.\n" +
		"- Use the `todo` tool to plan multi-step work; the plan is shown to the user.\n")
	if s.mode == ModePlan {
		fmt.Fprintf(&b, "\nYou are in Plan mode: only read-only tools run (reading and searching files, commands that only look such as ls, grep or git log); "+
			"edits, other commands and scripts are refused. Explore, write the plan with `todo`, then call `%s` to ask the user to approve it.\n", exitPlanModeName)
	}
	if s.memory != "" {
		b.WriteString("\n" + s.memory + "\n")
	}
	if idx := s.skillsIndex.peek(); idx != "" { // waited for by awaitSkillsIndex
		b.WriteString("\n" + idx + "\n")
	}
	b.WriteString(s.projectContextPrompt())
	return b.String()
}
