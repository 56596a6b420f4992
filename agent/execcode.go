package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
)

// CallTool runs one tool call of an execute_code script (tools.Deps.CallTool):
// through the session's pipeline, exactly as a call of the model (its hooks,
// guardrails, file safety, edit approval with the diff, lint, the result
// budget), and shown in the editor as its own tool call under the
// execute_code call parentCallID (_meta.hermes.parentToolCallId, titles
// prefixed "[py n] " with n the script's call number). It returns the text
// the model would have read. A delegated child's Env runs it through the
// child's pipeline.
func (e *Env) CallTool(ctx context.Context, parentCallID, name string, args json.RawMessage) (string, error) {
	s := e.s
	var pipe *registry.Pipeline
	var reg *registry.Registry
	if e.child != nil {
		pipe, reg = e.child.pipe.Load(), e.child.reg
	} else {
		s.mu.Lock()
		pipe, reg = s.pipe, s.reg
		s.mu.Unlock()
	}
	if pipe == nil || reg == nil {
		return "", errors.New("the session has no tools")
	}
	v, _ := e.scriptCalls.LoadOrStore(parentCallID, new(atomic.Int64))
	n := v.(*atomic.Int64).Add(1)
	id := fmt.Sprintf("%s.py%d", parentCallID, n)
	rc := &registry.Call{ID: id, Name: name, RawArgs: string(args)}
	t := &toolCallTracker{s: s, id: id, name: name, raw: string(args), label: fmt.Sprintf("[py %d] ", n), parent: parentCallID}
	t.entry, _ = reg.Snapshot().Lookup(name)
	s.calls.add(t)
	defer s.dropTrackers([]model.ToolCall{{ID: id}})
	outs := pipe.NewTurn().Run(ctx, []*registry.Call{rc}, registry.RunOptions{OnStart: t.start, OnFinish: t.finish})
	if len(outs) != 1 {
		return "", fmt.Errorf("run %s: no outcome", name)
	}
	return outs[0].Content, nil
}

// scriptCallCounters numbers the tool calls of each execute_code call.
type scriptCallCounters = sync.Map
