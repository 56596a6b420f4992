package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/registry"
)

// delegate_task is the agent's own tool (hermes's agent-loop tool,
// tools/delegate_tool.py): it hands sub-tasks to child agents, each with a
// fresh history, the session's workspace and services and a restricted
// toolset, runs a batch of them concurrently and returns their summaries.
// The children's turn loop lives in agent/delegate_child.go.

// delegateName is the delegate_task tool's name.
const delegateName = "delegate_task"

// Hermes's delegation defaults (tools/delegate_tool.py).
const (
	DefaultDelegationMaxConcurrent = 3
	DefaultDelegationMaxDepth      = 1
	DefaultDelegationMaxIterations = 50
)

// DelegationOptions are delegate_task's limits: the config file's
// delegation section. Zero values are hermes's defaults.
type DelegationOptions struct {
	// MaxConcurrent is how many children run at once, and so how many
	// tasks one call may have (delegation.max_concurrent, default 3).
	MaxConcurrent int
	// MaxDepth is how deep delegation nests (delegation.max_depth, default
	// 1: the session's agent delegates, its children cannot).
	MaxDepth int
	// MaxIterations is each child's budget of model calls
	// (delegation.max_iterations, default 50).
	MaxIterations int
	// Model is the children's model, a name the session's provider serves
	// (delegation.model); "" means the parent's model.
	Model string
}

func (o DelegationOptions) withDefaults() DelegationOptions {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultDelegationMaxConcurrent
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultDelegationMaxDepth
	}
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultDelegationMaxIterations
	}
	return o
}

// childBlocked are the tools a child never gets (hermes
// DELEGATE_BLOCKED_TOOLS and the toolsets it strips), plus todo: the
// session's plan is the user's view of the parent's work. An orchestrator
// child keeps delegate_task.
var childBlocked = []string{delegateName, "clarify", memoryName, "send_message", "execute_code", todoName, "cronjob", exitPlanModeName}

// Roles of a child.
const (
	roleLeaf         = "leaf"
	roleOrchestrator = "orchestrator"
)

func delegateEntry(o DelegationOptions, enabled func(string) bool) registry.Entry {
	o = o.withDefaults()
	return registry.Entry{
		Name:         delegateName,
		Toolset:      "delegation",
		Emoji:        "🔀",
		Description:  delegateDescription(o, enabled),
		Schema:       delegateSchema(o),
		Kind:         registry.KindOther,
		ChangesFiles: true, // checkpointed first (issue 29)
		Title:        delegateTitle,
		Preview:      delegatePreview,
		Render:       delegateRender,
	}
}

// delegateDescription is hermes's description with the session's limits
// and naming only the tools the session has.
func delegateDescription(o DelegationOptions, enabled func(string) bool) string {
	var b strings.Builder
	b.WriteString("Spawn one or more subagents to work on tasks in isolated contexts. " +
		"Each subagent gets its own conversation and toolset and works in your workspace; its edits ask the user for approval like yours. " +
		"Only the final summary is returned -- intermediate tool results never enter your context window.\n\n")
	b.WriteString("TWO MODES (one of 'goal' or 'tasks' is required):\n" +
		"1. Single task: provide 'goal' (+ optional context)\n")
	fmt.Fprintf(&b, "2. Batch (parallel): provide 'tasks' array with up to %d items concurrently for this user "+
		"(configured via delegation.max_concurrent in config.yaml). All run in parallel and results are returned together. %s\n\n",
		o.MaxConcurrent, nestingClause(o.MaxDepth))
	model := "your model"
	if o.Model != "" {
		model = fmt.Sprintf("the model %q (delegation.model)", o.Model)
	}
	fmt.Fprintf(&b, "Each subagent runs on %s and may make up to %d model calls (delegation.max_iterations); "+
		"one that runs out returns what it has.\n\n", model, o.MaxIterations)
	b.WriteString("WHEN TO USE delegate_task:\n" +
		"- Reasoning-heavy subtasks (debugging, code review, research synthesis)\n" +
		"- Tasks that would flood your context with intermediate data\n" +
		"- Parallel independent workstreams (research A and B simultaneously)\n\n")
	b.WriteString("WHEN NOT TO USE (use these instead):\n")
	if enabled("execute_code") {
		b.WriteString("- Mechanical multi-step work with no reasoning needed -> use execute_code\n")
	}
	b.WriteString("- Single tool call -> just call the tool directly\n" +
		"- Tasks needing user interaction -> subagents cannot ask the user questions\n" +
		"- delegate_task runs SYNCHRONOUSLY inside your turn: if the user cancels the turn, every subagent is cancelled " +
		"with status='interrupted' and its work is discarded. Children cannot continue in the background.\n\n")
	b.WriteString("IMPORTANT:\n" +
		"- Subagents have NO memory of your conversation. Pass all relevant info (file paths, error messages, constraints) via the 'context' field.\n" +
		"- If the user is writing in a non-English language, or asked for output in a specific language / tone / style, " +
		"say so in 'context' (e.g. \"respond in Chinese\"). Otherwise subagents default to English and their summaries " +
		"will contaminate your final reply with the wrong language.\n" +
		"- Subagent summaries are SELF-REPORTS, not verified facts. Each result lists the files the subagent changed " +
		"(files_changed); read back what matters before telling the user the work is done.\n")
	blocked := blockedNames(enabled, false)
	fmt.Fprintf(&b, "- Leaf subagents (role='leaf', the default) CANNOT call: %s.\n", strings.Join(blocked, ", "))
	if others := blockedNames(enabled, true); len(others) > 0 {
		fmt.Fprintf(&b, "- Orchestrator subagents (role='orchestrator') retain delegate_task so they can spawn their own workers, "+
			"but still cannot use %s. Orchestrators are bounded by max_depth=%d for this user.\n", strings.Join(others, ", "), o.MaxDepth)
	} else {
		fmt.Fprintf(&b, "- Orchestrator subagents (role='orchestrator') retain delegate_task so they can spawn their own workers. "+
			"Orchestrators are bounded by max_depth=%d for this user.\n", o.MaxDepth)
	}
	b.WriteString("- Results are always returned as an array, one entry per task.")
	return b.String()
}

// blockedNames lists the blocked tools the session has (delegate_task is
// always listed for leaves); forOrchestrator leaves delegate_task out.
func blockedNames(enabled func(string) bool, forOrchestrator bool) []string {
	var out []string
	for _, n := range childBlocked {
		switch {
		case n == delegateName && forOrchestrator:
		case n == exitPlanModeName: // the session's mode, not a tool a task needs
		case n == delegateName, enabled(n):
			out = append(out, n)
		}
	}
	return out
}

// nestingClause says whether children may delegate (hermes's wording).
func nestingClause(maxDepth int) string {
	if maxDepth >= 2 {
		return fmt.Sprintf("Nested delegation IS enabled for this user (max_depth=%d): pass role='orchestrator' on a child "+
			"to let it spawn its own workers, up to %d additional level(s) deep.", maxDepth, maxDepth-1)
	}
	return fmt.Sprintf("Nested delegation is OFF for this user (max_depth=%d): every child is a leaf and cannot delegate further. "+
		"Raise delegation.max_depth in config.yaml to enable nesting.", maxDepth)
}

func delegateSchema(o DelegationOptions) map[string]any {
	roles := []any{roleLeaf, roleOrchestrator}
	nesting := fmt.Sprintf("Nesting is OFF for this user (max_depth=%d); 'orchestrator' is silently forced to 'leaf'. "+
		"Raise delegation.max_depth in config.yaml to enable.", o.MaxDepth)
	if o.MaxDepth >= 2 {
		nesting = fmt.Sprintf("Nesting IS enabled for this user (max_depth=%d): orchestrator children can themselves delegate up to %d more level(s) deep.",
			o.MaxDepth, o.MaxDepth-1)
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"goal": map[string]any{
				"type": "string",
				"description": "What the subagent should accomplish. Be specific and self-contained -- " +
					"the subagent knows nothing about your conversation history.",
			},
			"context": map[string]any{
				"type": "string",
				"description": "Background information the subagent needs: file paths, error messages, project structure, " +
					"constraints. The more specific you are, the better the subagent performs.",
			},
			"tasks": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"goal":    map[string]any{"type": "string", "description": "Task goal"},
						"context": map[string]any{"type": "string", "description": "Task-specific context"},
						"role": map[string]any{"type": "string", "enum": roles,
							"description": "Per-task role override. See top-level 'role' for semantics."},
					},
					"required": []any{"goal"},
				},
				"description": fmt.Sprintf("Batch mode: tasks to run in parallel (up to %d for this user, set via delegation.max_concurrent). "+
					"Each gets its own subagent with isolated context. When provided, top-level goal/context are ignored.", o.MaxConcurrent),
			},
			"role": map[string]any{
				"type": "string",
				"enum": roles,
				"description": "Role of the child agent. 'leaf' (default) = focused worker, cannot delegate further. " +
					"'orchestrator' = can use delegate_task to spawn its own workers. " + nesting,
			},
		},
		"required": []any{},
	}
}

// delegateTitle is "delegate: <goal>" or "delegate: N tasks"; arguments of
// the wrong type give "" (the tool's name).
func delegateTitle(args map[string]any) string {
	if tasks, ok := args["tasks"].([]any); ok && len(tasks) > 0 {
		if len(tasks) == 1 {
			return "delegate: 1 task"
		}
		return fmt.Sprintf("delegate: %d tasks", len(tasks))
	}
	if g := firstLine(str(args, "goal")); g != "" {
		return "delegate: " + clip(g, 70)
	}
	return ""
}

// delegatePreview lists the goals while the children start.
func delegatePreview(args map[string]any) string {
	var goals []string
	if tasks, ok := args["tasks"].([]any); ok {
		for _, t := range tasks {
			if m, ok := t.(map[string]any); ok {
				goals = append(goals, str(m, "goal"))
			}
		}
	} else if g := str(args, "goal"); g != "" {
		goals = append(goals, g)
	}
	var b strings.Builder
	for i, g := range goals {
		fmt.Fprintf(&b, "- [%d] %s\n", i+1, clip(firstLine(g), 100))
	}
	return strings.TrimSpace(b.String())
}

// delegateRender is the completed call's last line, below the children's
// final status list.
func delegateRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(delegateResult)
	if !ok { // a result read back from the store (session/load) is decoded JSON
		b, err := json.Marshal(r.Value)
		if err != nil || json.Unmarshal(b, &res) != nil || len(res.Results) == 0 {
			return ""
		}
	}
	done := 0
	for _, t := range res.Results {
		if t.Status == statusCompleted {
			done++
		}
	}
	icon := "✅"
	if done < len(res.Results) {
		icon = "⚠️"
	}
	return fmt.Sprintf("%s %d of %d %s completed in %.1f s", icon, done, len(res.Results), plural(len(res.Results), "task", "tasks"), res.TotalDurationSeconds)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// delegateTool is delegate_task bound to session s, for the session's own
// agent (parent nil) or for an orchestrator child.
func (s *Session) delegateTool(parent *childScope) registry.Entry {
	enabled := s.env.Enabled
	if parent != nil {
		enabled = func(n string) bool { return parent.enabled[n] }
	}
	e := delegateEntry(s.a.opts.Delegation, enabled)
	e.Handler = func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		return s.delegate(ctx, parent, call)
	}
	return e
}

// delegateTask is one task of a call.
type delegateTask struct {
	goal, context, role string
}

// Child statuses (hermes's values).
const (
	statusCompleted   = "completed"
	statusFailed      = "failed"
	statusInterrupted = "interrupted"
	statusError       = "error"
)

// delegateResult is what the model reads (hermes's shape).
type delegateResult struct {
	Results              []taskResult `json:"results"`
	TotalDurationSeconds float64      `json:"total_duration_seconds"`
}

// taskResult is one child's result.
type taskResult struct {
	TaskIndex       int          `json:"task_index"`
	Status          string       `json:"status"`
	Summary         string       `json:"summary"`
	Error           string       `json:"error,omitempty"`
	APICalls        int          `json:"api_calls"`
	DurationSeconds float64      `json:"duration_seconds"`
	Model           string       `json:"model,omitempty"`
	ExitReason      string       `json:"exit_reason"`
	Tokens          tokenCounts  `json:"tokens"`
	ToolTrace       []traceEntry `json:"tool_trace"`
	// FilesChanged are the files the child's successful edits changed
	// (relative to the workspace root when inside it).
	FilesChanged []string `json:"files_changed"`
}

type tokenCounts struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// traceEntry is one tool call of a child (hermes tool_trace).
type traceEntry struct {
	Tool        string `json:"tool"`
	ArgsBytes   int    `json:"args_bytes"`
	ResultBytes int    `json:"result_bytes"`
	Status      string `json:"status"`
}

// delegate runs delegate_task: it checks the depth and the tasks, runs the
// children concurrently (at most MaxConcurrent at once; each in a context
// derived from ctx, so a cancel stops them all) and waits for every one
// before returning their results in task order.
func (s *Session) delegate(ctx context.Context, parent *childScope, call *registry.Call) (registry.Result, error) {
	o := s.a.opts.Delegation.withDefaults()
	depth := 0
	if parent != nil {
		depth = parent.depth
	}
	if depth >= o.MaxDepth {
		return registry.Errorf("Delegation depth limit reached (depth=%d, max_depth=%d). Raise delegation.max_depth in config.yaml "+
			"if deeper nesting is required (no hard ceiling, but each level multiplies API cost).", depth, o.MaxDepth), nil
	}
	tasks, problem := parseDelegateArgs(call.Args, o.MaxConcurrent)
	if problem != "" {
		return registry.Error(problem), nil
	}
	start := s.a.now()
	board := newDelegateBoard(s.tracker(call.ID), tasks)
	prefix := ""
	if parent != nil {
		prefix = parent.label
	}
	children := make([]*childAgent, len(tasks))
	for i, t := range tasks {
		c, err := s.newChild(parent, call.ID, prefix+fmt.Sprintf("[%d] ", i+1), i, t, board)
		if err != nil {
			return registry.Result{}, fmt.Errorf("delegate_task: start subagent %d: %w", i+1, err)
		}
		children[i] = c
	}
	results := make([]taskResult, len(tasks))
	slots := make(chan struct{}, o.MaxConcurrent)
	var wg sync.WaitGroup
	for i, c := range children {
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				results[i] = c.interrupted()
				return
			}
			defer func() { <-slots }()
			results[i] = c.run(ctx)
		})
	}
	wg.Wait()
	total := round2(s.a.now().Sub(start).Seconds())
	if ctx.Err() != nil {
		// hermes's interrupt result, with what each child got to.
		return registry.Failed(delegateCancelled{Error: "Tool execution cancelled by user interrupt", Status: "cancelled",
			Results: results, TotalDurationSeconds: total}), nil
	}
	return registry.OK(delegateResult{Results: results, TotalDurationSeconds: total}), nil
}

// delegateCancelled is the result of a call whose turn was cancelled.
type delegateCancelled struct {
	Error                string       `json:"error"`
	Status               string       `json:"status"`
	Results              []taskResult `json:"results"`
	TotalDurationSeconds float64      `json:"total_duration_seconds"`
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// parseDelegateArgs turns the arguments into tasks, or says what is wrong
// in hermes's words.
func parseDelegateArgs(args map[string]any, max int) ([]delegateTask, string) {
	topRole := normalizeRole(args["role"])
	raw := args["tasks"]
	if s, ok := raw.(string); ok {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, "Provide either 'goal' (single task) or 'tasks' (batch)."
		}
		var parsed any
		if err := json.Unmarshal([]byte(s), &parsed); err != nil {
			return nil, fmt.Sprintf("tasks must be a JSON array of task objects; received a string that could not be parsed as JSON (%v).", err)
		}
		list, ok := parsed.([]any)
		if !ok {
			return nil, fmt.Sprintf("tasks must be a JSON array of task objects; parsed %s instead.", pyfmt.TypeName(parsed))
		}
		raw = list
	}
	var tasks []delegateTask
	if list, ok := raw.([]any); ok && len(list) > 0 {
		if len(list) > max {
			return nil, fmt.Sprintf("Too many tasks: %d provided, but max_concurrent is %d. Either reduce the task count, "+
				"split into multiple delegate_task calls, or increase delegation.max_concurrent in config.yaml.", len(list), max)
		}
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Sprintf("Task %d must be an object, got %s.", i, pyfmt.TypeName(item))
			}
			goal, _ := m["goal"].(string)
			if strings.TrimSpace(goal) == "" {
				return nil, fmt.Sprintf("Task %d is missing a 'goal'.", i)
			}
			role := topRole
			if r, ok := m["role"].(string); ok && r != "" {
				role = normalizeRole(r)
			}
			ctxText, _ := m["context"].(string)
			tasks = append(tasks, delegateTask{goal: goal, context: ctxText, role: role})
		}
		return tasks, ""
	}
	goal, _ := args["goal"].(string)
	if strings.TrimSpace(goal) == "" {
		return nil, "Provide either 'goal' (single task) or 'tasks' (batch)."
	}
	ctxText, _ := args["context"].(string)
	return []delegateTask{{goal: goal, context: ctxText, role: topRole}}, ""
}

// normalizeRole makes a role "leaf" or "orchestrator"; anything else is a
// leaf (hermes _normalize_role).
func normalizeRole(v any) string {
	r, _ := v.(string)
	if strings.EqualFold(strings.TrimSpace(r), roleOrchestrator) {
		return roleOrchestrator
	}
	return roleLeaf
}

// delegateBoard is the live status of a call's children, shown as the
// delegate_task call's content: each child's label, goal, state and tool
// count. Updates are built and sent under one lock, so the editor never
// sees an older list after a newer one.
type delegateBoard struct {
	t *toolCallTracker // the delegate_task call; nil outside a turn

	mu   sync.Mutex
	rows []boardRow
}

type boardRow struct {
	goal  string
	state string // queued, running, or a final status
	tools int
	note  string // the first line of the summary or error, once done
}

func newDelegateBoard(t *toolCallTracker, tasks []delegateTask) *delegateBoard {
	b := &delegateBoard{t: t, rows: make([]boardRow, len(tasks))}
	for i, task := range tasks {
		b.rows[i] = boardRow{goal: task.goal, state: "queued"}
	}
	return b
}

// set changes row i and sends the new list. The list is posted under b.mu,
// so the lists reach the editor in the order of the changes, and waited
// for after it: the other children's changes do not wait for the editor.
func (b *delegateBoard) set(i int, f func(*boardRow)) {
	b.mu.Lock()
	f(&b.rows[i])
	if b.t != nil {
		b.t.postUpdate(acp.StatusInProgress, []acp.ToolCallContent{acp.TextContentItem(b.render())})
	}
	b.mu.Unlock()
	if b.t != nil {
		b.t.s.out.flush()
	}
}

// render is the list as Markdown; b.mu is held.
func (b *delegateBoard) render() string {
	var sb strings.Builder
	running, done := 0, 0
	for _, r := range b.rows {
		switch r.state {
		case "running":
			running++
		case "queued":
		default:
			done++
		}
	}
	fmt.Fprintf(&sb, "**Subagents**: %d running, %d done of %d\n", running, done, len(b.rows))
	for i, r := range b.rows {
		icon := map[string]string{"queued": "⏸", "running": "⏳", statusCompleted: "✅", statusInterrupted: "⏹"}[r.state]
		if icon == "" {
			icon = "❌"
		}
		fmt.Fprintf(&sb, "- [%d] %s %s · %d tool %s — %s", i+1, icon, r.state, r.tools, plural(r.tools, "call", "calls"), clip(firstLine(r.goal), 80))
		if r.note != "" {
			fmt.Fprintf(&sb, "\n  ↳ %s", clip(firstLine(r.note), 160))
		}
		sb.WriteByte('\n')
	}
	return strings.TrimSpace(sb.String())
}

// childEnabled is the tool set of a child: the names its parent offers,
// less the blocked tools (an orchestrator keeps delegate_task).
func childEnabled(parentNames []string, orchestrator bool) []string {
	var out []string
	for _, n := range parentNames {
		if slices.Contains(childBlocked, n) && !(orchestrator && n == delegateName) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// childBlockedFor is what a child's registry drops.
func childBlockedFor(orchestrator bool) []string {
	if !orchestrator {
		return childBlocked
	}
	return slices.DeleteFunc(slices.Clone(childBlocked), func(n string) bool { return n == delegateName })
}
