package model

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

// excerptRunes is the longest "contains" excerpt a recording writes.
const excerptRunes = 40

// recorder wraps a Provider and, after every completed reply, rewrites a
// script file holding the conversation so far, so it can be replayed with
// "script:FILE". It is safe for concurrent use, but the file holds one
// conversation: the one that completed a reply last. Record one session at
// a time.
type recorder struct {
	p    Provider
	path string
	log  *slog.Logger

	mu      sync.Mutex    // guards replies
	replies []scriptReply // by position in the conversation; never modified in place
}

var _ Provider = (*recorder)(nil)

func newRecorder(p Provider, path string, log *slog.Logger) *recorder {
	return &recorder{p: p, path: path, log: log}
}

// Name returns the wrapped provider's name.
func (r *recorder) Name() string { return r.p.Name() }

// NameFor returns the name of the provider that serves model, when the
// wrapped provider is a [Router].
func (r *recorder) NameFor(model string) string {
	if rt, ok := r.p.(*Router); ok {
		return rt.NameFor(model)
	}
	return r.p.Name()
}

// Stream streams from the wrapped provider and records a completed reply.
// A failure to write the file is logged and does not fail the reply.
func (r *recorder) Stream(ctx context.Context, req Request, emit func(Delta)) (*Reply, error) {
	reply, err := r.p.Stream(ctx, req, emit)
	if err != nil {
		return nil, err
	}
	data, err := marshalScript(r.add(req, reply))
	if err == nil {
		if err = atomicfile.Write(r.path, data, 0o644); err != nil {
			err = fmt.Errorf("record %s: %w", r.path, err)
		}
	}
	if err != nil {
		r.log.Error("cannot record the model reply", "file", r.path, "err", err)
	}
	return reply, nil
}

// add records reply at the position the request asks for and returns the
// script so far. Replies after that position (from an earlier
// conversation, or a turn that was retried) are dropped; missing earlier
// replies (a resumed session) are rebuilt from the request's history.
func (r *recorder) add(req Request, reply *Reply) []scriptReply {
	r.mu.Lock()
	defer r.mu.Unlock()
	pos := 0
	for i, m := range req.Messages {
		if m.Role != RoleAssistant {
			continue
		}
		if pos >= len(r.replies) {
			prev := Message{}
			if i > 0 {
				prev = req.Messages[i-1]
			}
			r.replies = append(r.replies, recordReply(prev, i > 0, &Reply{
				Text: m.Content, Thought: m.Thought, ToolCalls: m.ToolCalls,
				FinishReason: defaultFinish(m.ToolCalls),
			}))
		}
		pos++
	}
	var last Message
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	// The three-index slice makes append copy, so a slice returned earlier
	// never sees this change.
	r.replies = append(r.replies[:pos:pos], recordReply(last, len(req.Messages) > 0, reply))
	return r.replies
}

// recordReply converts a reply to its script form, expecting prev as the
// request's last message when hasPrev.
func recordReply(prev Message, hasPrev bool, reply *Reply) scriptReply {
	s := scriptReply{Thought: reply.Thought, Text: reply.Text}
	if hasPrev {
		s.Expect = &scriptExpect{Role: string(prev.Role), Contains: excerpt(messageText(prev))}
		if n := len(prev.Images); n > 0 {
			s.Expect.Images = &n
		}
	}
	for _, c := range reply.ToolCalls {
		s.ToolCalls = append(s.ToolCalls, scriptToolCall{
			Name: c.Name, ID: c.ID, Arguments: scriptArgs{json: c.Arguments, set: true},
		})
	}
	if reply.FinishReason != defaultFinish(reply.ToolCalls) && reply.FinishReason != "" {
		s.Finish = string(reply.FinishReason)
	}
	return s
}

// defaultFinish is the finish reason a script reply has without "finish".
func defaultFinish(calls []ToolCall) FinishReason {
	if len(calls) > 0 {
		return ToolCalls
	}
	return Stop
}

// excerpt returns the start of the first non-blank line of s, at most
// excerptRunes runes, cut at a word boundary when possible.
func excerpt(s string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= excerptRunes {
			return line
		}
		cut := string([]rune(line)[:excerptRunes])
		if i := strings.LastIndexAny(cut, " \t"); i > excerptRunes/2 {
			cut = cut[:i]
		}
		return strings.TrimSpace(cut)
	}
	return ""
}

// marshalScript renders replies in script format.
func marshalScript(replies []scriptReply) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("# Recorded by hermes-acp --record; replay it with --model script:FILE.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(scriptFile{Replies: replies}); err != nil {
		return nil, fmt.Errorf("encode script: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode script: %w", err)
	}
	return buf.Bytes(), nil
}
