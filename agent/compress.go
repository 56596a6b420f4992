package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/agent/internal/compress"
	"github.com/hermes-acp/hermes-acp/model"
)

// Context compression (issue #13): past a share of the model's context
// length, the middle of the conversation the model sees is replaced by a
// summary the model writes. s.history keeps every original message (the
// store saves them and session/load replays them); s.comp says which span
// the summary stands for, and requestMessages sends the compressed view.

// contextBudget is the context size in tokens and the compression threshold.
func contextBudget(setup ModelSetup) (size, threshold int) {
	size = setup.ContextWindow
	if size <= 0 {
		size = DefaultContextWindow
	}
	return size, compress.Threshold(size, setup.CompressionThreshold)
}

// contextTokens is the size of the next request: the prompt and reply
// tokens the provider reported for the last call plus an estimate of the
// messages added since, or an estimate of the whole request when the
// provider reports no usage (or the conversation was compressed since).
// s.mu is held.
func (s *Session) contextTokens(tools []model.ToolDef) int {
	if s.ctxTokens > 0 && s.ctxAt <= len(s.history) { // compact and /reset clear ctxTokens
		return s.ctxTokens + compress.Estimate(s.history[s.ctxAt:])
	}
	n := compress.Estimate(s.comp.View(s.history)) + len(s.systemPrompt())/4
	for _, t := range tools {
		n += (len(t.Name) + len(t.Description)) / 4
		n += 50 * len(t.Parameters) // a rough size of each parameter's schema
	}
	return n
}

// noteUsage records the provider's token counts of the call just made;
// its reply is the next history entry. s.mu is held.
func (s *Session) noteUsage(u model.Usage) {
	s.ctxTokens, s.ctxAt = 0, 0
	if u.InputTokens > 0 {
		s.ctxTokens, s.ctxAt = u.InputTokens+u.OutputTokens, len(s.history)+1
	}
}

// maybeCompress compresses the conversation when the next request would
// pass the threshold. It costs an estimate when it does not trigger.
func (s *Session) maybeCompress(ctx context.Context, setup ModelSetup, tools []model.ToolDef) {
	if setup.CompressionOff {
		return
	}
	_, threshold := contextBudget(setup)
	s.mu.Lock()
	used := s.contextTokens(tools)
	backoff := s.compBackoff
	s.mu.Unlock()
	if used < threshold || backoff {
		return
	}
	s.a.log.Info("context past the compression threshold", "session", s.id, "tokens", used, "threshold", threshold)
	if _, _, err := s.compact(ctx, setup, "", false); err != nil && !errors.Is(err, errNothingToCompress) {
		// Not again before the next prompt: a failing summary request
		// would otherwise double every request of the turn.
		s.mu.Lock()
		s.compBackoff = true
		s.mu.Unlock()
		s.a.log.Warn("context compression failed; the turn goes on uncompressed", "session", s.id, "error", err)
	}
}

// errNothingToCompress: the conversation has no middle to summarise.
var errNothingToCompress = errors.New("nothing to compress: the conversation is only its first exchange and recent messages")

// compact summarises the middle of the conversation with the model (focus
// steers the summary) and resets the tools' per-session state (read
// dedup). It returns the estimated size of the model's view before and
// after. The session id and the stored history do not change. forced
// (/compact, or the provider said the context is full) keeps a smaller
// tail: at most a quarter of the conversation's size.
func (s *Session) compact(ctx context.Context, setup ModelSetup, focus string, forced bool) (before, after int, err error) {
	if setup.Provider == nil {
		return 0, 0, errors.New("no model is configured")
	}
	_, threshold := contextBudget(setup)
	s.mu.Lock()
	st := s.comp
	before = compress.Estimate(st.View(s.history))
	tail := compress.TailTokens(threshold)
	if forced {
		tail = min(tail, before/4)
	}
	w, ok := compress.Select(s.history, st, tail)
	name := s.modelName
	s.mu.Unlock()
	if !ok {
		return before, before, errNothingToCompress
	}
	if name == noModel {
		name = ""
	}
	reply, err := setup.Provider.Stream(ctx, model.Request{Model: name, Messages: []model.Message{
		{Role: model.RoleUser, Content: compress.Prompt(w.Middle, focus)},
	}}, func(model.Delta) {})
	if err != nil {
		return before, before, fmt.Errorf("summarise the conversation: %w", err)
	}
	summary := strings.TrimSpace(reply.Text)
	if summary == "" {
		return before, before, errors.New("summarise the conversation: the model returned an empty summary")
	}
	s.mu.Lock()
	if s.comp != st { // reset or compressed meanwhile
		s.mu.Unlock()
		return before, before, errors.New("the conversation changed during compression")
	}
	s.comp = compress.State{Head: w.Head, Tail: w.Tail, Summary: summary, Ask: w.Ask}
	s.ctxTokens, s.ctxAt = 0, 0
	after = compress.Estimate(s.comp.View(s.history))
	s.mu.Unlock()
	if s.reg != nil {
		// Read dedup and the like refer to messages the model no longer sees.
		if err := s.bindTools(); err != nil {
			s.a.log.Warn("rebind tools after compression", "session", s.id, "error", err)
		}
	}
	s.a.log.Info("context compressed", "session", s.id, "summarised", w.Tail-w.Head, "before", before, "after", after)
	s.sendText(fmt.Sprintf("\n\n🗜️ Context compressed: %d earlier messages summarised (~%d → ~%d tokens).\n\n", w.Tail-w.Head, before, after))
	return before, after, nil
}

// isContextLength reports whether err is the provider's "conversation too
// long" answer.
func isContextLength(err error) bool {
	var me *model.Error
	return errors.As(err, &me) && me.Kind == model.ContextLength
}
