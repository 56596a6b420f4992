package main

import (
	"path/filepath"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/skills"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// skillLibrary is the skills library of a session (issue #14).
func skillLibrary(cfg config.Config, env *agent.Env) *skills.Library {
	return skills.New(skillOptions(cfg, env.Workspace().Roots()))
}

// skillOptions are the skills roots of a session on the workspace roots:
// the project's .hermes/skills in each root (unless
// skills.project_discovery is false), $HERMES_HOME/skills, and
// skills.external_dirs; skills.disabled hides skills.
func skillOptions(cfg config.Config, roots []string) skills.Options {
	var project []string
	if !cfg.SkillsProjectOff {
		for _, root := range roots {
			project = append(project, filepath.Join(root, filepath.FromSlash(skills.ProjectDir)))
		}
	}
	return skills.Options{
		UserDir:      filepath.Join(cfg.Home, "skills"),
		ProjectDirs:  project,
		ExternalDirs: cfg.SkillsExternal,
		Disabled:     cfg.SkillsDisabled,
		Workspace:    workspace.Options{HermesHome: cfg.Home},
	}
}

// skillsIndex is the skill index of a new session's system prompt: the
// skills it can see, one line each, when it can load them.
func skillsIndex(cfg config.Config, env *agent.Env) string {
	if !env.Enabled("skill_view") {
		return ""
	}
	list := ""
	if env.Enabled("skills_list") {
		list = "skills_list"
	}
	manage := ""
	if env.Enabled("skill_manage") {
		manage = "skill_manage"
	}
	all, _ := skillLibrary(cfg, env).List()
	return skills.Index(all, list, "skill_view", manage)
}
