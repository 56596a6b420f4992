package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// runTurn sends msg to the model and runs the tool calls it asks for until
// it stops. Every update of the turn is written before it returns.
func (s *Session) runTurn(ctx context.Context, msg model.Message) acp.StopReason {
	setup := s.a.modelSetup()
	s.mu.Lock()
	s.compBackoff = false
	s.mu.Unlock()
	defer s.checkpointTurn(msg)() // checkpoints (issue 29): records the turn's end last
	s.appendHistory(msg)
	s.persist() // the prompt survives a kill before the model answers (agent/persist.go)
	defer s.endTurn()
	if setup.Provider == nil {
		s.sendText(noModelText(setup.Problem))
		return acp.StopEndTurn
	}
	var pturn *registry.Turn
	s.mu.Lock()
	pipe := s.pipe
	s.mu.Unlock()
	if pipe != nil {
		pturn = pipe.NewTurn()
	}
	s.mcp.settle(ctx) // the session's first prompt waits for its MCP servers to start (agent/mcp.go)
	if !s.awaitSkillsIndex(ctx) {
		return acp.StopCancelled
	}
	retried := false // a context-length error compresses and retries once
	for calls := 0; ; calls++ {
		if calls >= s.a.opts.MaxModelCalls {
			s.sendText(fmt.Sprintf("\n\nStopped: this turn reached the limit of %d model requests. Send another prompt to continue.", s.a.opts.MaxModelCalls))
			return acp.StopMaxTurnRequests
		}
		s.takeSteering()
		s.takeAnnouncements(true)
		tools := s.toolDefs() // per request: MCP servers may change their tools mid-turn
		s.maybeCompress(ctx, setup, tools)
		reply, partial, replyID, err := s.callModel(ctx, setup, tools)
		if err != nil && !retried && ctx.Err() == nil && partial.Text == "" && isContextLength(err) {
			retried = true
			s.a.log.Warn("the model's context is full; compressing and retrying", "session", s.id, "error", err)
			if _, _, cerr := s.compact(ctx, setup, "", true); cerr == nil {
				reply, partial, replyID, err = s.callModel(ctx, setup, tools)
			} else {
				s.a.log.Warn("context compression failed", "session", s.id, "error", cerr)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				if partial.Text != "" || partial.Thought != "" {
					s.appendHistory(model.Message{ID: replyID, Role: model.RoleAssistant, Content: partial.Text, Thought: partial.Thought})
				}
				return acp.StopCancelled
			}
			s.reportModelError(err)
			return acp.StopEndTurn
		}
		calls := s.assignCallIDs(reply.ToolCalls)
		s.appendHistory(model.Message{ID: replyID, Role: model.RoleAssistant, Content: reply.Text, Thought: reply.Thought, Reasoning: reply.Reasoning, ToolCalls: calls})
		if len(calls) == 0 {
			switch reply.FinishReason {
			case model.Length:
				return acp.StopMaxTokens
			case model.ContentFilter:
				return acp.StopRefusal
			}
			return acp.StopEndTurn
		}
		s.appendHistory(s.runCapped(ctx, pturn, calls)...)
		if ctx.Err() != nil {
			return acp.StopCancelled
		}
		if pturn != nil {
			// tool_loop_guardrails.hard_stop_enabled: a blocked call or a
			// tool that kept failing ends the turn; the model has read why.
			if d, halted := pturn.Halted(); halted {
				s.a.log.Warn("turn stopped by the tool loop guardrails", "session", s.id, "code", d.Code, "tool", d.ToolName, "count", d.Count)
				s.sendText("\n\nStopped by the tool loop guardrails: " + d.Message)
				return acp.StopEndTurn
			}
		}
	}
}

// callModel streams one model reply to the editor. On error, partial holds
// what was streamed before it. id is the messageId its chunks carried: the
// id of the assistant message it becomes.
func (s *Session) callModel(ctx context.Context, setup ModelSetup, tools []model.ToolDef) (reply *model.Reply, partial model.Reply, id string, err error) {
	s.mu.Lock()
	name := s.modelName
	msgs := s.requestMessages()
	s.mu.Unlock()
	if name == noModel {
		name = ""
	}
	textID := newMessageID()
	thoughtID := textID + thoughtIDSuffix
	reply, err = setup.Provider.Stream(ctx, model.Request{Model: name, Messages: msgs, Tools: tools}, func(d model.Delta) {
		if d.Text != "" {
			partial.Text += d.Text
			s.send(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(d.Text), MessageID: &textID}})
		}
		if d.Thought != "" {
			partial.Thought += d.Thought
			s.send(acp.SessionUpdate{AgentThoughtChunk: &acp.ContentChunk{Content: acp.TextBlock(d.Thought), MessageID: &thoughtID}})
		}
	})
	if err != nil {
		return nil, partial, textID, err
	}
	s.mu.Lock()
	s.lastUsage = reply.Usage
	s.noteUsage(reply.Usage)
	s.mu.Unlock()
	s.sendUsage(setup, reply.Usage, msgs)
	return reply, partial, textID, nil
}

// sendUsage reports context-window use after a model call.
func (s *Session) sendUsage(setup ModelSetup, u model.Usage, msgs []model.Message) {
	used := u.TotalTokens
	if used == 0 {
		used = u.InputTokens + u.OutputTokens
	}
	if used == 0 {
		n := 0
		for _, m := range msgs {
			n += len(m.Content) + len(m.Thought)
			for _, c := range m.ToolCalls {
				n += len(c.Arguments)
			}
		}
		used = n / 4
	}
	size := setup.ContextWindow
	if size <= 0 {
		size = DefaultContextWindow
	}
	s.send(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: uint64(used), Size: uint64(size)}})
}

// reportModelError tells the user, as an agent message, what went wrong.
func (s *Session) reportModelError(err error) {
	var me *model.Error
	if errors.As(err, &me) {
		s.sendText("\n\n⚠️ " + me.Message)
		s.a.log.Warn("model request failed", "session", s.id, "kind", me.Kind, "error", err)
		return
	}
	s.a.log.Error("model request failed", "session", s.id, "error", err)
	s.sendText(fmt.Sprintf("\n\n⚠️ The model request failed: %v", err))
}

// noModelText explains how to configure a model.
func noModelText(problem string) string {
	var b strings.Builder
	b.WriteString("No language model is configured, so I can't answer yet.\n\n")
	if problem != "" {
		b.WriteString(problem + "\n\n")
	}
	b.WriteString("Configure one in any of these ways, then send the prompt again:\n" +
		"- run `hermes-acp --setup` in a terminal (it writes `$HERMES_HOME/config.yaml`, by default `~/.hermes/config.yaml`);\n" +
		"- or set `HERMES_MODEL` (and `OPENAI_BASE_URL`, `OPENAI_API_KEY` for an OpenAI-compatible server, or `ANTHROPIC_API_KEY` for Anthropic) in the environment the editor starts hermes-acp with;\n" +
		"- or pass `--model NAME --base-url URL` in the editor's agent settings.\n" +
		"For offline tests, `--model script:FILE` replays a scripted conversation.")
	return b.String()
}

// assignCallIDs gives every call an id unique in the session: the provider's
// id when it has one that is not taken.
func (s *Session) assignCallIDs(calls []model.ToolCall) []model.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]model.ToolCall, len(calls))
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, m := range s.history {
		for _, c := range m.ToolCalls {
			seen[c.ID] = true
		}
	}
	for i, c := range calls {
		id := c.ID
		if id == "" || seen[id] {
			id = "call_" + newMessageID()[:12]
		}
		seen[id] = true
		c.ID = id
		out[i] = c
	}
	return out
}

// runCapped runs at most MaxToolCallsPerReply of one reply's calls; every
// call beyond the cap gets a result telling the model it did not run, so
// each call id in the history still has its answer.
func (s *Session) runCapped(ctx context.Context, pturn *registry.Turn, calls []model.ToolCall) []model.Message {
	limit := s.a.opts.MaxToolCallsPerReply
	if len(calls) <= limit {
		return s.runTools(ctx, pturn, calls)
	}
	s.a.log.Warn("model reply exceeds the tool-call cap", "session", s.id, "calls", len(calls), "limit", limit)
	s.sendText(fmt.Sprintf("\n\n⚠️ The model asked for %d tool calls in one reply; only the first %d were run.\n\n", len(calls), limit))
	msgs := s.runTools(ctx, pturn, calls[:limit])
	note := registry.Errorf("Not run: this reply asked for %d tool calls and at most %d run per reply (the first %d ran). Send fewer tool calls at a time.", len(calls), limit, limit).Encode()
	for _, c := range calls[limit:] {
		msgs = append(msgs, model.Message{Role: model.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: note, IsError: true})
	}
	return msgs
}

// runTools runs one reply's tool calls through the pipeline and returns the
// tool messages, in call order.
func (s *Session) runTools(ctx context.Context, pturn *registry.Turn, calls []model.ToolCall) []model.Message {
	rcalls := make([]*registry.Call, len(calls))
	trackers := make(map[*registry.Call]*toolCallTracker, len(calls))
	for i, c := range calls {
		rc := &registry.Call{ID: c.ID, Name: c.Name, RawArgs: c.Arguments}
		rcalls[i] = rc
		trackers[rc] = s.newTracker(c)
	}
	outs := make([]registry.Outcome, len(calls))
	if pturn == nil {
		for i, rc := range rcalls {
			t := trackers[rc]
			t.start(rc)
			r := registry.Error("Unknown tool: " + rc.Name + ". No tools are available in this session.")
			outs[i] = registry.Outcome{Result: r, Content: r.Encode(), Failed: true}
			t.finish(rc, outs[i])
		}
	} else {
		outs = pturn.Run(ctx, rcalls, registry.RunOptions{
			OnStart:  func(c *registry.Call) { trackers[c].start(c) },
			OnFinish: func(c *registry.Call, out registry.Outcome) { trackers[c].finish(c, out) },
		})
	}
	s.dropTrackers(calls)
	msgs := make([]model.Message, len(calls))
	for i, c := range calls {
		msgs[i] = model.Message{Role: model.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: outs[i].Content, IsError: outs[i].Failed,
			Display: trackers[rcalls[i]].display()} // the card, for a reload (agent/replay.go)
	}
	return msgs
}

// toolDefs returns the tools offered to the model: the registered, available
// tools of the session's toolsets.
func (s *Session) toolDefs() []model.ToolDef {
	if s.reg == nil {
		return nil
	}
	defs := s.reg.Definitions(s.toolNames())
	out := make([]model.ToolDef, len(defs))
	for i, d := range defs {
		out[i] = model.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters, ParametersJSON: d.ParametersJSON}
	}
	return out
}

// appendHistory adds messages to the conversation, each with an id.
func (s *Session) appendHistory(msgs ...model.Message) {
	for i := range msgs {
		if msgs[i].ID == "" {
			msgs[i].ID = newMessageID()
		}
	}
	s.mu.Lock()
	s.history = append(s.history, msgs...)
	s.updated = s.a.now()
	s.mu.Unlock()
}

// requestMessages is the system prompt plus the history; s.mu is held.
func (s *Session) requestMessages() []model.Message {
	view := s.comp.View(s.history) // compressed: agent/compress.go
	msgs := make([]model.Message, 0, len(view)+1)
	msgs = append(msgs, model.Message{Role: model.RoleSystem, Content: s.systemPrompt()})
	return append(msgs, view...)
}

// takeSteering moves /steer guidance into the conversation.
func (s *Session) takeSteering() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.steer {
		s.history = append(s.history, model.Message{Role: model.RoleUser, Content: "User guidance for the current task: " + g})
	}
	s.steer = nil
}

// endTurn titles a new session and persists the conversation.
func (s *Session) endTurn() {
	s.takeAnnouncements(false)
	s.mu.Lock()
	var title string
	if s.title == "" {
		title = titleFrom(s.history)
		s.title = title
	}
	updated := s.updated
	s.mu.Unlock()
	if title != "" {
		at := updated.UTC().Format(time.RFC3339)
		s.send(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: &title, UpdatedAt: &at}})
	}
	s.persist()
}

// titleFrom makes a title from the first user message.
func titleFrom(history []model.Message) string {
	for _, m := range history {
		if m.Role != model.RoleUser {
			continue
		}
		line := strings.TrimSpace(m.Content)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		return truncateRunes(line, 80)
	}
	return ""
}

func truncateRunes(s string, n int) string {
	count, cut := 0, 0
	for i := range s { // no []rune copy: s may be a 50 MB prompt
		if count == n-1 {
			cut = i
		}
		if count == n {
			return s[:cut] + "…"
		}
		count++
	}
	return s
}

func newMessageID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
