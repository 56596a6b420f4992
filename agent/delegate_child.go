package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// childScope is what a delegated child's tools are bound to: the session
// (its workspace, files, edit approval, lint and diagnostics, all shared
// with the parent) and the child's own tool set, registry, pipeline and
// read/write state.
type childScope struct {
	depth   int    // 1 for the session's children, 2 for theirs
	label   string // prefix of its calls' titles: "[1] ", "[1][2] "
	enabled map[string]bool
	names   []string // the tools offered to its model, in toolset order
	reg     *registry.Registry
	pipe    atomic.Pointer[registry.Pipeline]
}

// childAgent is one delegated task: a turn loop with a fresh history.
type childAgent struct {
	s      *Session
	scope  *childScope
	idx    int
	task   delegateTask
	role   string // effective role (orchestrator only where the depth allows)
	parent string // the delegate_task call id
	idBase string // prefix of its tool call ids, unique in the session
	board  *delegateBoard
	model  string
	setup  ModelSetup
}

// newChild builds child idx of the delegate_task call callID: its tool set
// (the parent's less the blocked tools), its tools bound to an Env that
// shares the session's services, and a pipeline with the session's hooks.
func (s *Session) newChild(parent *childScope, callID, label string, idx int, task delegateTask, board *delegateBoard) (*childAgent, error) {
	o := s.a.opts.Delegation.withDefaults()
	depth := 1
	var parentNames []string
	if parent != nil {
		depth = parent.depth + 1
		parentNames = parent.names
	} else {
		parentNames = s.toolNames()
	}
	role := task.role
	if role == roleOrchestrator && depth >= o.MaxDepth {
		role = roleLeaf // hermes degrades silently; the description says so
	}
	orch := role == roleOrchestrator
	scope := &childScope{depth: depth, label: label, enabled: map[string]bool{}}
	base := s.reg
	if parent != nil {
		base = parent.reg
	}
	if base == nil {
		base = registry.New(s.log)
	}
	snap := base.Snapshot()
	for _, n := range childEnabled(parentNames, orch) {
		if snap.Has(n) {
			scope.enabled[n] = true
			scope.names = append(scope.names, n)
		}
	}
	// The child's own read/write state, like hermes's per-child task id: a
	// file the child rewrites after the parent read it makes the parent's
	// next write of it warn that it changed.
	env := &Env{s: s, files: s.env.files, state: workspace.NewState(s.ws), diag: s.env.diag, child: scope}
	entries, po := s.toolBinding(env)
	if scope.enabled[sessionSearchName] {
		entries = append(entries, s.sessionSearchTool())
	}
	if orch && scope.enabled[delegateName] {
		entries = append(entries, s.delegateTool(scope))
	}
	reg := base.Clone()
	for _, n := range childBlockedFor(orch) {
		reg.Deregister(n)
	}
	if err := reg.RegisterAll(entries...); err != nil {
		return nil, err
	}
	scope.reg = reg
	scope.pipe.Store(registry.NewPipeline(reg, po))
	setup := s.a.modelSetup()
	name := o.Model
	if name == "" {
		s.mu.Lock()
		name = s.modelName
		s.mu.Unlock()
		if name == noModel {
			name = ""
		}
	}
	return &childAgent{
		s: s, scope: scope, idx: idx, task: task, role: role, parent: callID,
		idBase: fmt.Sprintf("%s.%d.", callID, idx+1), board: board, model: name, setup: setup,
	}, nil
}

// systemPrompt is hermes's child prompt (_build_child_system_prompt): the
// task, its context, the workspace, what to report, and for an
// orchestrator what delegating means at its depth.
func (c *childAgent) systemPrompt() string {
	o := c.s.a.opts.Delegation.withDefaults()
	var b strings.Builder
	b.WriteString("You are a focused subagent working on a specific delegated task.\n\n")
	fmt.Fprintf(&b, "YOUR TASK:\n%s\n", c.task.goal)
	if strings.TrimSpace(c.task.context) != "" {
		fmt.Fprintf(&b, "\nCONTEXT:\n%s\n", c.task.context)
	}
	fmt.Fprintf(&b, "\nWORKSPACE PATH:\n%s\nUse this exact path for local repository/workdir operations unless the task explicitly says otherwise. "+
		"Paths may be relative to it; files outside the workspace roots cannot be read or written.\n", c.s.ws.Cwd())
	fmt.Fprintf(&b, "Operating system: %s/%s. Today's date: %s.\n", runtime.GOOS, runtime.GOARCH, c.s.a.now().Format("2006-01-02"))
	b.WriteString("\nComplete this task using the tools available to you. When finished, provide a clear, concise summary of:\n" +
		"- What you did\n- What you found or accomplished\n- Any files you created or modified\n- Any issues encountered\n\n" +
		"The user sees every edit you make as a diff and may reject it; when an edit is denied, do not retry it unchanged -- report it instead.\n\n" +
		"Be thorough but concise -- your response is returned to the parent agent as a summary.")
	if c.role == roleOrchestrator {
		note := "Your own children can themselves be orchestrators or leaves, depending on the `role` you pass to delegate_task. " +
			"Default is 'leaf'; pass role='orchestrator' explicitly when a child needs to further decompose its work."
		if c.scope.depth+1 >= o.MaxDepth {
			note = "Your own children MUST be leaves (cannot delegate further) because they would be at the depth floor -- " +
				"you cannot pass role='orchestrator' to your own delegate_task calls."
		}
		fmt.Fprintf(&b, "\n\n## Subagent Spawning (Orchestrator Role)\n"+
			"You have access to the `delegate_task` tool and CAN spawn your own subagents to parallelize independent work.\n\n"+
			"WHEN to delegate:\n- The goal decomposes into 2+ independent subtasks that can run in parallel.\n"+
			"- A subtask is reasoning-heavy and would flood your context with intermediate data.\n\n"+
			"WHEN NOT to delegate:\n- Single-step mechanical work -- do it directly.\n- Trivial tasks you can execute in one or two tool calls.\n"+
			"- Re-delegating your entire assigned goal to one worker.\n\n"+
			"Coordinate your workers' results and synthesize them before reporting back to your parent. "+
			"You are responsible for the final summary, not your workers.\n\n"+
			"NOTE: You are at depth %d. The delegation tree is capped at max_depth=%d. %s", c.scope.depth, o.MaxDepth, note)
	}
	return b.String()
}

// interrupted is the result of a child cancelled before it started.
func (c *childAgent) interrupted() taskResult {
	c.board.set(c.idx, func(r *boardRow) { r.state = statusInterrupted })
	return taskResult{TaskIndex: c.idx, Status: statusInterrupted, Error: "Parent turn cancelled before the subagent started",
		ExitReason: statusInterrupted, Model: c.model, ToolTrace: []traceEntry{}, FilesChanged: []string{}}
}

// run is the child's turn loop: model call, tool calls, again, until the
// model answers without tool calls (its summary), the iteration budget is
// spent, the model fails, or ctx is cancelled. Its text is not streamed to
// the editor; its tool calls are, under the delegate_task call.
func (c *childAgent) run(ctx context.Context) taskResult {
	o := c.s.a.opts.Delegation.withDefaults()
	start := c.s.a.now()
	res := taskResult{TaskIndex: c.idx, Model: c.model, ToolTrace: []traceEntry{}, FilesChanged: []string{}}
	c.board.set(c.idx, func(r *boardRow) { r.state = "running" })
	defer func() {
		res.DurationSeconds = round2(c.s.a.now().Sub(start).Seconds())
		note := res.Summary
		if res.Status != statusCompleted && res.Error != "" {
			note = res.Error
		}
		c.board.set(c.idx, func(r *boardRow) { r.state, r.note = res.Status, note })
	}()
	if c.setup.Provider == nil {
		res.Status, res.ExitReason, res.Error = statusError, statusError, "No language model is configured."
		return res
	}
	history := []model.Message{{Role: model.RoleUser, Content: c.task.goal}}
	system := model.Message{Role: model.RoleSystem, Content: c.systemPrompt()}
	defs := c.toolDefs()
	pipe := c.scope.pipe.Load()
	pturn := pipe.NewTurn()
	seen := map[string]bool{}
	lastText := ""
	for {
		if res.APICalls >= o.MaxIterations {
			res.ExitReason = "max_iterations"
			break
		}
		msgs := append([]model.Message{system}, history...)
		reply, err := c.setup.Provider.Stream(ctx, model.Request{Model: c.model, Messages: msgs, Tools: defs}, func(model.Delta) {})
		if err != nil {
			if ctx.Err() != nil {
				res.Status, res.ExitReason, res.Error = statusInterrupted, statusInterrupted, "Parent turn cancelled; the subagent did not finish"
				return res
			}
			res.Status, res.ExitReason, res.Error = statusError, statusError, modelErrorText(err)
			res.Summary = lastText
			return res
		}
		res.APICalls++
		res.Tokens.Input += reply.Usage.InputTokens
		res.Tokens.Output += reply.Usage.OutputTokens
		if strings.TrimSpace(reply.Text) != "" {
			lastText = reply.Text
		}
		calls := c.assignIDs(reply.ToolCalls, seen)
		history = append(history, model.Message{Role: model.RoleAssistant, Content: reply.Text, Thought: reply.Thought, Reasoning: reply.Reasoning, ToolCalls: calls})
		if len(calls) == 0 {
			res.ExitReason = statusCompleted
			break
		}
		history = append(history, c.runCapped(ctx, pturn, calls, &res)...)
		if ctx.Err() != nil {
			res.Status, res.ExitReason, res.Error = statusInterrupted, statusInterrupted, "Parent turn cancelled; the subagent did not finish"
			return res
		}
		if d, halted := pturn.Halted(); halted {
			res.ExitReason, res.Error = "guardrail_stop", "Stopped by the tool loop guardrails: "+d.Message
			break
		}
	}
	res.Summary = strings.TrimSpace(lastText)
	switch {
	case res.Summary != "":
		res.Status = statusCompleted
	case res.ExitReason == "max_iterations":
		res.Status = statusFailed
		res.Error = fmt.Sprintf("Subagent used its budget of %d model calls (delegation.max_iterations) without a final answer.", o.MaxIterations)
	default:
		res.Status = statusFailed
		if res.Error == "" {
			res.Error = "Subagent did not produce a response."
		}
	}
	return res
}

// modelErrorText is a model failure in the user's words.
func modelErrorText(err error) string {
	var me *model.Error
	if errors.As(err, &me) {
		return me.Message
	}
	return fmt.Sprintf("The model request failed: %v", err)
}

// toolDefs are the tools offered to the child's model.
func (c *childAgent) toolDefs() []model.ToolDef {
	defs := c.scope.reg.Definitions(c.scope.names)
	out := make([]model.ToolDef, len(defs))
	for i, d := range defs {
		out[i] = model.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters, ParametersJSON: d.ParametersJSON}
	}
	return out
}

// assignIDs makes the child's call ids unique in the session: the
// delegate_task call's id, the task number, and the provider's id (or a
// fresh one when the child already used it).
func (c *childAgent) assignIDs(calls []model.ToolCall, seen map[string]bool) []model.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]model.ToolCall, len(calls))
	for i, call := range calls {
		id := call.ID
		if id == "" || seen[id] {
			id = "call_" + newMessageID()[:12]
		}
		seen[id] = true
		call.ID = c.idBase + id
		out[i] = call
	}
	return out
}

// runCapped runs at most MaxToolCallsPerReply of one reply's calls, as the
// session's turn does; the calls beyond the cap are answered "not run".
func (c *childAgent) runCapped(ctx context.Context, pturn *registry.Turn, calls []model.ToolCall, res *taskResult) []model.Message {
	limit := c.s.a.opts.MaxToolCallsPerReply
	if len(calls) <= limit {
		return c.runTools(ctx, pturn, calls, res)
	}
	msgs := c.runTools(ctx, pturn, calls[:limit], res)
	note := registry.Errorf("Not run: this reply asked for %d tool calls and at most %d run per reply (the first %d ran). Send fewer tool calls at a time.", len(calls), limit, limit).Encode()
	for _, call := range calls[limit:] {
		msgs = append(msgs, model.Message{Role: model.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: note, IsError: true})
	}
	return msgs
}

// runTools runs one reply's calls through the child's pipeline; each call
// is shown in the editor with the child's label and its parent call, and
// counted on the board.
func (c *childAgent) runTools(ctx context.Context, pturn *registry.Turn, calls []model.ToolCall, res *taskResult) []model.Message {
	rcalls := make([]*registry.Call, len(calls))
	trackers := make(map[*registry.Call]*toolCallTracker, len(calls))
	snap := c.scope.reg.Snapshot()
	for i, mc := range calls {
		rc := &registry.Call{ID: mc.ID, Name: mc.Name, RawArgs: mc.Arguments}
		rcalls[i] = rc
		t := &toolCallTracker{s: c.s, id: mc.ID, name: mc.Name, raw: mc.Arguments, label: c.scope.label, parent: c.parent}
		t.entry, _ = snap.Lookup(mc.Name)
		trackers[rc] = t
	}
	for _, t := range trackers {
		c.s.calls.add(t)
	}
	defer c.s.dropTrackers(calls)
	var mu sync.Mutex
	outs := pturn.Run(ctx, rcalls, registry.RunOptions{
		OnStart: func(rc *registry.Call) {
			c.board.set(c.idx, func(r *boardRow) { r.tools++ })
			trackers[rc].start(rc)
		},
		OnFinish: func(rc *registry.Call, out registry.Outcome) {
			t := trackers[rc]
			t.finish(rc, out)
			if out.Failed || out.Cancelled || out.Blocked {
				return
			}
			t.mu.Lock()
			changed := t.changed
			t.mu.Unlock()
			mu.Lock()
			for _, f := range changed {
				if !slices.Contains(res.FilesChanged, f) {
					res.FilesChanged = append(res.FilesChanged, f)
				}
			}
			mu.Unlock()
		},
	})
	msgs := make([]model.Message, len(calls))
	for i, mc := range calls {
		status := "ok"
		if outs[i].Failed {
			status = "error"
		}
		res.ToolTrace = append(res.ToolTrace, traceEntry{Tool: mc.Name, ArgsBytes: len(mc.Arguments), ResultBytes: len(outs[i].Content), Status: status})
		msgs[i] = model.Message{Role: model.RoleTool, ToolCallID: mc.ID, Name: mc.Name, Content: outs[i].Content, IsError: outs[i].Failed}
	}
	return msgs
}
