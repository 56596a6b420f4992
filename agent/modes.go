package agent

import (
	"slices"

	"github.com/hermes-acp/hermes-acp/acp"
)

// Session modes, as hermes defines them (hermes-behaviour.md §1.6).
const (
	ModeDefault     = "default"      // ask before every edit
	ModeAcceptEdits = "accept_edits" // auto-allow edits inside the roots and the temp folder
	ModeDontAsk     = "dont_ask"     // auto-allow every allowed edit; sensitive paths still ask
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
}

func validMode(id string) bool {
	return slices.ContainsFunc(modes, func(m modeInfo) bool { return m.id == id })
}

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
