package main

import (
	"path/filepath"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/skills"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// skillLibrary is the skills library of a session (issue #14): the
// project's .hermes/skills in each workspace root (unless
// skills.project_discovery is false), $HERMES_HOME/skills, and
// skills.external_dirs.
func skillLibrary(cfg config, env *agent.Env) *skills.Library {
	var project []string
	if !cfg.SkillsProjectOff {
		for _, root := range env.Workspace().Roots() {
			project = append(project, filepath.Join(root, filepath.FromSlash(skills.ProjectDir)))
		}
	}
	return skills.New(skills.Options{
		UserDir:      filepath.Join(cfg.Home, "skills"),
		ProjectDirs:  project,
		ExternalDirs: cfg.SkillsExternal,
		Disabled:     cfg.SkillsDisabled,
		Workspace:    workspace.Options{HermesHome: cfg.Home},
	})
}

// skillsIndex is the skill index of a new session's system prompt: the
// skills it can see, one line each, when it can load them.
func skillsIndex(cfg config, env *agent.Env) string {
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
