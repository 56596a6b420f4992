package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal/danger"
)

// Session modes, as hermes defines them (hermes-behaviour.md §1.6), and
// plan mode (issue #28).
const (
	ModeDefault     = "default"      // ask before every edit
	ModeAcceptEdits = "accept_edits" // auto-allow edits inside the roots and the temp folder
	ModeDontAsk     = "dont_ask"     // auto-allow every allowed edit; sensitive paths still ask
	// ModePlan runs only read-only tool calls until the user approves the
	// model's plan (exit_plan_mode); see [planGate].
	ModePlan = "plan"
)

// Config option ids.
const (
	configMode  = "mode"
	configModel = "model"
)

type modeInfo struct{ id, name, desc string }

var modes = []modeInfo{
	{ModeDefault, "Default", "Ask before edits."},
	{ModeAcceptEdits, "Accept Edits", "Auto-allow workspace and /tmp edits; still asks for sensitive paths."},
	{ModeDontAsk, "Don't Ask", "Auto-allow file edits for this session except sensitive paths."},
	{ModePlan, "Plan", "Read-only: explore and propose a plan; edits and commands wait until you approve it."},
}

func validMode(id string) bool {
	return slices.ContainsFunc(modes, func(m modeInfo) bool { return m.id == id })
}

// modeIDs lists the mode ids for messages ("default, accept_edits, …").
func modeIDs() string {
	ids := make([]string, len(modes))
	for i, m := range modes {
		ids[i] = m.id
	}
	return strings.Join(ids, ", ")
}

// modeName is the display name of mode id.
func modeName(id string) string {
	for _, m := range modes {
		if m.id == id {
			return m.name
		}
	}
	return id
}

// asksBeforeEdits reports whether mode asks the user before every edit
// and script (default; plan mode, whose calls that get that far are
// read-only, asks too).
func asksBeforeEdits(mode string) bool {
	return mode != ModeAcceptEdits && mode != ModeDontAsk
}

// planGate is the first pre-hook of every pipeline of a session — its
// own, its delegated children's and the tool calls of its execute_code
// scripts, which run through the session's pipeline: in plan mode it lets
// only read-only calls run. A call is read-only when its tool's entry says
// so (ReadOnly), or when the tool runs a shell command (CommandArg) that
// the danger check classifies read-only. Everything else is refused with
// a result that tells the model what to do instead. It decides from the
// tools' entries, never from their names.
type planGate struct {
	s *Session
	// lookup finds the entry of a tool in the registry the pipeline runs
	// (the session's or a child's).
	lookup func(name string) (registry.Entry, bool)
}

// Pre refuses the calls plan mode does not run.
func (g planGate) Pre(_ context.Context, call *registry.Call) (bool, string) {
	if g.s.Mode() != ModePlan {
		return false, ""
	}
	e, ok := g.lookup(call.Name)
	if !ok {
		return false, "" // an unknown tool: dispatch answers it
	}
	if e.ReadOnly {
		return false, ""
	}
	if e.CommandArg != "" {
		cmd, _ := call.Args[e.CommandArg].(string)
		o := danger.Options{Dir: g.s.ws.Cwd(), Roots: g.s.ws.Roots()}
		if o.Check(cmd).ReadOnly {
			return false, ""
		}
		return true, fmt.Sprintf("Blocked in Plan mode: the command %q is not read-only, so it does not run until the user approves your plan. "+
			"In Plan mode only commands that only look run (ls, cat, grep, find, git status/log/diff/show …) — no writes, no builds or tests, no scripts. "+
			"Do not retry it: finish the plan with todo, then call %s to ask the user to approve it.", truncateRunes(cmd, 200), exitPlanModeName)
	}
	return true, fmt.Sprintf("Blocked in Plan mode: %s would change the workspace or run code, so it does not run until the user approves your plan. "+
		"Do not retry it: use read-only tools to look around, write the plan with todo, then call %s to ask the user to approve it.", call.Name, exitPlanModeName)
}

// Post does nothing.
func (planGate) Post(context.Context, *registry.Call, registry.Result, time.Duration) {}

// modeState returns the ACP modes value for current.
func modeState(current string) *acp.SessionModeState {
	st := &acp.SessionModeState{CurrentModeID: current}
	for _, m := range modes {
		d := m.desc
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{ID: m.id, Name: m.name, Description: &d})
	}
	return st
}

// configOptions returns the complete config option list: the mode (kept in
// sync with modes) and the model.
func configOptions(mode, modelName string, choices []string) []acp.SessionConfigOption {
	modeOpt := acp.SessionConfigOption{ID: configMode, Name: "Mode", Category: "mode", CurrentValue: mode}
	for _, m := range modes {
		d := m.desc
		modeOpt.Options = append(modeOpt.Options, acp.SessionConfigSelectOption{Value: m.id, Name: m.name, Description: &d})
	}
	modelDesc := "The model that answers prompts."
	modelOpt := acp.SessionConfigOption{ID: configModel, Name: "Model", Description: &modelDesc, Category: "model", CurrentValue: modelName}
	for _, c := range modelChoices(modelName, choices) {
		modelOpt.Options = append(modelOpt.Options, acp.SessionConfigSelectOption{Value: c, Name: c})
	}
	return []acp.SessionConfigOption{modeOpt, modelOpt}
}

// modelChoices lists current first, then the other configured models.
func modelChoices(current string, choices []string) []string {
	out := []string{current}
	for _, c := range choices {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
