package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
)

// session/new does not wait for the skills index (it scans the skill
// folders); the session's first request to the model carries it in the
// system prompt.
func TestSkillsIndexIsBuiltOffTheReplyPath(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		return textReply("ok", emit), nil
	}}
	h := newHarness(t, fm, harnessOptions{opts: agent.Options{SkillsIndex: func(*agent.Env) string {
		started <- struct{}{}
		<-release // a slow skills folder
		return "## Skills\n- demo: a skill for the test"
	}}})
	// The reply arrives while the index is still being listed.
	sid := h.newSession("")
	<-started
	close(release)
	h.prompt(sid, "hello")
	reqs := fm.requests()
	if len(reqs) == 0 || reqs[0].Messages[0].Role != model.RoleSystem {
		t.Fatalf("model requests = %v, want a system prompt first", reqs)
	}
	if sys := reqs[0].Messages[0].Content; !strings.Contains(sys, "- demo: a skill for the test") {
		t.Errorf("system prompt lacks the skills index:\n%s", sys)
	}
}
