package main

import (
	"context"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// visionDeps are vision_analyze's seams for a session: Vision asks the
// session's model or the auxiliary.vision model (nil when neither can see
// images), and FetchImage downloads image URLs under the web tools'
// network policy (policy).
func visionDeps(env *agent.Env, policy *web.Policy) (vision func(context.Context, []byte, string, string) (string, error), fetch func(context.Context, string, int64) ([]byte, string, error)) {
	if env.CanSee() {
		vision = env.Vision
	}
	return vision, policy.FetchImage
}

// markVisionUnavailable makes the declared vision_analyze unavailable in
// reg with reason, for `hermes-acp tools` (sessions bind it unavailable
// themselves).
func markVisionUnavailable(reg *registry.Registry, reason string) error {
	e, ok := reg.Snapshot().Lookup("vision_analyze")
	if !ok || reason == "" {
		return nil
	}
	e.Check = registry.Unavailable(reason)
	return reg.Register(e)
}
