package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/skills"
)

// skillLibrary is the skills library of a session (issue #14).
func skillLibrary(cfg config.Config, env *agent.Env) *skills.Library {
	return skills.New(cfg.Skills(env.Workspace().Roots()))
}

// skillsIndex is the skill index of a new session's system prompt: the
// skills it can see, one line each, when it can load them. Skills the
// threat scan left out are logged (and shown by /context).
func skillsIndex(cfg config.Config, env *agent.Env, log *slog.Logger) string {
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
	all, problems := skillLibrary(cfg, env).List()
	for _, p := range problems {
		var b *skills.BlockedError
		if errors.As(p.Err, &b) {
			log.Warn("skill left out: possible prompt injection", "skill", b.Name, "path", b.Path, "findings", strings.Join(b.Findings, ","))
		}
	}
	return skills.Index(all, list, "skill_view", manage)
}

// skillsBlocked lists, for /context, the skills of a session the threat
// scan leaves out: "name: path — findings".
func skillsBlocked(cfg config.Config, env *agent.Env) []string {
	_, problems := skillLibrary(cfg, env).List()
	var out []string
	for _, p := range problems {
		var b *skills.BlockedError
		if errors.As(p.Err, &b) {
			out = append(out, fmt.Sprintf("`%s`: %s — %s", b.Name, b.Path, strings.Join(b.Findings, ", ")))
		}
	}
	return out
}
