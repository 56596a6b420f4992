package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"
)

// scriptFile is the YAML form of a script. The same types are used to load
// a script and to record one, so the two formats cannot drift apart.
type scriptFile struct {
	Replies []scriptReply `yaml:"replies"`
	// Conversations are other conversations played by the same script,
	// such as the children delegate_task starts: a request whose first
	// user message matches one is answered from its replies.
	Conversations []scriptConversation `yaml:"conversations,omitempty"`
}

// scriptConversation is a conversation of its own within a script.
type scriptConversation struct {
	Match   scriptMatch   `yaml:"match"`
	Replies []scriptReply `yaml:"replies"`
}

// scriptMatch is a condition on the first user message of a request.
type scriptMatch struct {
	Contains string `yaml:"contains,omitempty"`
	Matches  string `yaml:"matches,omitempty"`
}

// scriptReply is one model reply of a script.
type scriptReply struct {
	Expect    *scriptExpect    `yaml:"expect,omitempty"`
	Thought   string           `yaml:"thought,omitempty"`
	Text      string           `yaml:"text,omitempty"`
	ToolCalls []scriptToolCall `yaml:"tool_calls,omitempty"`
	Finish    string           `yaml:"finish,omitempty"`
	Delay     scriptDuration   `yaml:"delay,omitempty"`
}

// scriptExpect is a condition on the last message of the request.
type scriptExpect struct {
	Role     string `yaml:"role,omitempty"`
	Contains string `yaml:"contains,omitempty"`
	Matches  string `yaml:"matches,omitempty"`
	// Images is the number of images the message must carry (images
	// attached to a prompt, or the image vision_analyze sends); nil means
	// any number.
	Images *int `yaml:"images,omitempty"`
}

// scriptToolCall is one tool call of a reply.
type scriptToolCall struct {
	Name      string     `yaml:"name"`
	Arguments scriptArgs `yaml:"arguments,omitempty"`
	ID        string     `yaml:"id,omitempty"`
}

// scriptArgs holds tool-call arguments as JSON text. In YAML they are a
// mapping or sequence (converted to JSON with key order kept) or a string
// taken verbatim.
type scriptArgs struct {
	json string
	set  bool
}

// IsZero reports whether the arguments were absent, for omitempty.
func (a scriptArgs) IsZero() bool { return !a.set }

// UnmarshalYAML converts the YAML value to JSON text.
func (a *scriptArgs) UnmarshalYAML(n *yaml.Node) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	a.set = true
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		a.json = n.Value
		return nil
	}
	var buf bytes.Buffer
	if err := nodeJSON(&buf, n); err != nil {
		return fmt.Errorf("line %d: arguments: %w", n.Line, err)
	}
	a.json = buf.String()
	return nil
}

// MarshalYAML writes JSON objects and arrays as YAML mappings and
// sequences (key order kept) and anything else as a string.
func (a scriptArgs) MarshalYAML() (any, error) {
	if n, ok := jsonNode(a.json); ok {
		return n, nil
	}
	return a.json, nil
}

// scriptDuration is a delay written like "50ms" or "1.5s".
type scriptDuration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *scriptDuration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: delay %q is not a duration like 50ms or 2s", n.Line, n.Value)
	}
	*d = scriptDuration(v)
	return nil
}

// MarshalYAML writes the duration like "50ms".
func (d scriptDuration) MarshalYAML() (any, error) {
	return time.Duration(d).String(), nil
}

// Script is the script provider: it replays the replies of a YAML script,
// one per [Script.Stream] call, choosing the reply from the number of
// assistant messages already in the request. It keeps no state between
// calls, so one value serves any number of conversations and is safe for
// concurrent use. A script may hold several conversations: a request whose
// first user message matches one of the conversations listed under
// "conversations" is answered from that conversation's replies (delegated
// children, which start with their goal, each get theirs); any other
// request from the top-level replies.
//
// The format:
//
//	replies:
//	  - thought: "The user greets me."     # optional, streamed as thought deltas
//	    text: "Hello! I am hermes-acp."    # optional, streamed word by word
//	  - expect: {role: tool, contains: "4"} # optional check of the request's last message
//	                                        # (matches: RE2 regexp instead of or besides contains;
//	                                        # images: N, the number of images the message carries)
//	    tool_calls:
//	      - name: write_file
//	        arguments: {path: notes.txt, content: "hi\n"} # mapping or JSON string
//	        id: call_1                                    # optional, default call_<n>
//	    finish: tool_calls  # optional: stop, tool_calls, length or content_filter
//	    delay: 50ms         # optional wait before replying
//	conversations:          # optional: other conversations, by their first user message
//	  - match: {contains: "Count the files"} # or matches: RE2 regexp
//	    replies:
//	      - text: "There are 3 files."
type Script struct {
	path    string
	replies []playReply
	convs   []playConversation
}

// playConversation is a validated conversation of a script.
type playConversation struct {
	line     int // of the conversation in the file
	contains string
	matches  *regexp.Regexp
	replies  []playReply
}

// playReply is a validated reply ready to play.
type playReply struct {
	line      int // of the reply in the file
	expect    *scriptExpect
	matches   *regexp.Regexp
	thought   string
	text      string
	toolCalls []ToolCall
	finish    FinishReason
	delay     time.Duration
}

var _ Provider = (*Script)(nil)

// LoadScript reads and validates the script at path. Errors are [*Error]
// with Kind [BadConfig] and name the file and line.
func LoadScript(path string) (*Script, error) {
	if path == "" {
		return nil, configError("The script model needs a file: use --model script:FILE.", nil)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, configError(fmt.Sprintf("Cannot read the model script %s.", path), err)
	}
	return ParseScript(path, data)
}

// ParseScript parses and validates a script; name is used in messages.
// Unknown fields, bad values and YAML syntax errors are reported as [*Error]
// with Kind [BadConfig] and "name:line" context.
func ParseScript(name string, data []byte) (*Script, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, scriptError(name, err)
	}
	var f scriptFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, scriptError(name, err)
	}
	items := replyNodes(&doc)
	if len(f.Replies) == 0 {
		return nil, configError(fmt.Sprintf("The model script %s has no replies: list them under \"replies:\".", name), nil)
	}
	s := &Script{path: name}
	callN := 0
	var err error
	if s.replies, err = parseReplies(name, f.Replies, items, &callN); err != nil {
		return nil, err
	}
	convNodes := topSeq(&doc, "conversations")
	for i, c := range f.Conversations {
		node := &yaml.Node{Line: 1}
		if i < len(convNodes) {
			node = convNodes[i]
		}
		pc := playConversation{line: node.Line, contains: c.Match.Contains}
		if c.Match.Contains == "" && c.Match.Matches == "" {
			return nil, scriptLineError(name, node.Line, "a conversation needs match.contains or match.matches (tested on the first user message of a request)")
		}
		if c.Match.Matches != "" {
			re, err := regexp.Compile(c.Match.Matches)
			if err != nil {
				return nil, scriptLineError(name, fieldLine(node, "match"), fmt.Sprintf("match.matches is not a valid regexp: %v", err))
			}
			pc.matches = re
		}
		if len(c.Replies) == 0 {
			return nil, scriptLineError(name, node.Line, "a conversation has no replies: list them under \"replies:\"")
		}
		var replyItems []*yaml.Node
		if seq := mappingValue(node, "replies"); seq != nil && seq.Kind == yaml.SequenceNode {
			replyItems = seq.Content
		}
		if pc.replies, err = parseReplies(name, c.Replies, replyItems, &callN); err != nil {
			return nil, err
		}
		s.convs = append(s.convs, pc)
	}
	return s, nil
}

// parseReplies validates the replies of one conversation; items are their
// YAML nodes, for line numbers, and callN numbers the default call ids.
func parseReplies(name string, replies []scriptReply, items []*yaml.Node, callN *int) ([]playReply, error) {
	var out []playReply
	for i, r := range replies {
		item := &yaml.Node{Line: 1}
		if i < len(items) {
			item = items[i]
		}
		p := playReply{line: item.Line, thought: r.Thought, text: r.Text, delay: time.Duration(r.Delay)}
		if e := r.Expect; e != nil {
			line := fieldLine(item, "expect")
			switch Role(e.Role) {
			case "", RoleSystem, RoleUser, RoleAssistant, RoleTool:
			default:
				return nil, scriptLineError(name, line, fmt.Sprintf("expect.role %q is not one of system, user, assistant, tool", e.Role))
			}
			if e.Images != nil && *e.Images < 0 {
				return nil, scriptLineError(name, line, fmt.Sprintf("expect.images %d is not a number of images (0 or more)", *e.Images))
			}
			if e.Matches != "" {
				re, err := regexp.Compile(e.Matches)
				if err != nil {
					return nil, scriptLineError(name, line, fmt.Sprintf("expect.matches is not a valid regexp: %v", err))
				}
				p.matches = re
			}
			p.expect = e
		}
		for j, tc := range r.ToolCalls {
			*callN++
			if strings.TrimSpace(tc.Name) == "" {
				return nil, scriptLineError(name, seqItemLine(item, "tool_calls", j), "a tool call needs a name")
			}
			call := ToolCall{ID: tc.ID, Name: tc.Name, Arguments: "{}"}
			if call.ID == "" {
				call.ID = "call_" + strconv.Itoa(*callN)
			}
			if tc.Arguments.set {
				call.Arguments = tc.Arguments.json
			}
			p.toolCalls = append(p.toolCalls, call)
		}
		switch FinishReason(r.Finish) {
		case "":
			p.finish = Stop
			if len(p.toolCalls) > 0 {
				p.finish = ToolCalls
			}
		case Stop, ToolCalls, Length, ContentFilter:
			p.finish = FinishReason(r.Finish)
		default:
			return nil, scriptLineError(name, fieldLine(item, "finish"), fmt.Sprintf("finish %q is not one of stop, tool_calls, length, content_filter", r.Finish))
		}
		out = append(out, p)
	}
	return out, nil
}

// conversation picks the replies that answer req: those of the first
// conversation whose match holds for the request's first user message, or
// the top-level ones. what names them in messages.
func (s *Script) conversation(msgs []Message) (replies []playReply, what string) {
	first, ok := "", false
	for _, m := range msgs {
		if m.Role == RoleUser {
			first, ok = messageText(m), true
			break
		}
	}
	if ok {
		for i, c := range s.convs {
			if (c.contains == "" || strings.Contains(first, c.contains)) && (c.matches == nil || c.matches.MatchString(first)) {
				return c.replies, fmt.Sprintf("conversation %d (line %d) of the model script %s", i+1, c.line, s.path)
			}
		}
	}
	return s.replies, "The model script " + s.path
}

// Name returns "script".
func (s *Script) Name() string { return "script" }

// Path returns the file the script was loaded from.
func (s *Script) Path() string { return s.path }

// Len returns the number of replies in the script.
func (s *Script) Len() int { return len(s.replies) }

// Stream plays the reply at the position given by the number of assistant
// messages in req.Messages: thought first, then text, each split into
// word-sized deltas. It fails with [ScriptExhausted] when the script has no
// reply at that position and with [ScriptMismatch] when the request's last
// message does not match the reply's expect.
func (s *Script) Stream(ctx context.Context, req Request, emit func(Delta)) (*Reply, error) {
	pos := 0
	for _, m := range req.Messages {
		if m.Role == RoleAssistant {
			pos++
		}
	}
	replies, what := s.conversation(req.Messages)
	if pos >= len(replies) {
		return nil, &Error{Kind: ScriptExhausted, Message: fmt.Sprintf(
			"%s has %d %s; the conversation asked for reply %d. Add replies to the script or start a new session.",
			upperFirst(what), len(replies), plural(len(replies), "reply", "replies"), pos+1)}
	}
	r := replies[pos]
	if err := s.check(pos, r, req.Messages); err != nil {
		return nil, err
	}
	if r.delay > 0 {
		t := time.NewTimer(r.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("script reply %d: %w", pos+1, ctx.Err())
		case <-t.C:
		}
	}
	for _, chunk := range splitWords(r.thought) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("script reply %d: %w", pos+1, err)
		}
		emit(Delta{Thought: chunk})
	}
	for _, chunk := range splitWords(r.text) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("script reply %d: %w", pos+1, err)
		}
		emit(Delta{Text: chunk})
	}
	reply := &Reply{
		Text:         r.text,
		Thought:      r.thought,
		ToolCalls:    append([]ToolCall(nil), r.toolCalls...),
		FinishReason: r.finish,
	}
	reply.Usage = estimateUsage(req.Messages, reply)
	return reply, nil
}

// check verifies r's expect against the last message of the request.
func (s *Script) check(pos int, r playReply, msgs []Message) error {
	e := r.expect
	if e == nil {
		return nil
	}
	var want []string
	if e.Role != "" {
		want = append(want, "a "+e.Role+" message")
	} else {
		want = append(want, "a message")
	}
	if e.Contains != "" {
		want = append(want, fmt.Sprintf("containing %q", truncate(e.Contains, 80)))
	}
	if e.Matches != "" {
		want = append(want, fmt.Sprintf("matching /%s/", e.Matches))
	}
	if e.Images != nil {
		want = append(want, "with "+imageCount(*e.Images))
	}
	var got string
	ok := len(msgs) > 0
	if ok {
		last := msgs[len(msgs)-1]
		text := messageText(last)
		ok = (e.Role == "" || Role(e.Role) == last.Role) &&
			(e.Contains == "" || strings.Contains(text, e.Contains)) &&
			(r.matches == nil || r.matches.MatchString(text)) &&
			(e.Images == nil || *e.Images == len(last.Images))
		got = fmt.Sprintf("a %s message: %q", last.Role, truncate(text, 120))
		if e.Images != nil {
			got += " with " + imageCount(len(last.Images))
		}
	} else {
		got = "no messages at all"
	}
	if ok {
		return nil
	}
	return &Error{Kind: ScriptMismatch, Message: fmt.Sprintf(
		"The conversation does not match the model script %s: reply %d (line %d) expects the last message to be %s, but it is %s.",
		s.path, pos+1, r.line, strings.Join(want, " "), got)}
}

// imageCount says "no image", "1 image" or "N images".
func imageCount(n int) string {
	if n == 0 {
		return "no image"
	}
	return fmt.Sprintf("%d %s", n, plural(n, "image", "images"))
}

// messageText is the text an expect looks at: the content, or for an
// assistant message without content, its tool calls.
func messageText(m Message) string {
	if m.Content != "" || len(m.ToolCalls) == 0 {
		return m.Content
	}
	var b strings.Builder
	for i, c := range m.ToolCalls {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Name + " " + c.Arguments)
	}
	return b.String()
}

// splitWords splits s into chunks that each end after a run of white
// space, so the chunks joined give s back.
func splitWords(s string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && inSpace && i > start {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// estimateUsage counts roughly four characters per token.
func estimateUsage(msgs []Message, r *Reply) Usage {
	in := 0
	for _, m := range msgs {
		in += len(m.Content) + len(m.Thought)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	out := len(r.Text) + len(r.Thought)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := Usage{InputTokens: tokens(in), OutputTokens: tokens(out), ThoughtTokens: tokens(len(r.Thought))}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	return u
}

func tokens(chars int) int { return (chars + 3) / 4 }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// replyNodes returns the item nodes of the top-level "replies" sequence.
func replyNodes(doc *yaml.Node) []*yaml.Node { return topSeq(doc, "replies") }

// topSeq returns the item nodes of the top-level sequence under key.
func topSeq(doc *yaml.Node, key string) []*yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	seq := mappingValue(doc.Content[0], key)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	return seq.Content
}

// upperFirst capitalises the first letter of a message.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mappingValue returns the value of key in mapping node m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// fieldLine returns the line of key's value in mapping m, or m's line.
func fieldLine(m *yaml.Node, key string) int {
	if v := mappingValue(m, key); v != nil {
		return v.Line
	}
	return m.Line
}

// seqItemLine returns the line of item j of the sequence under key in m.
func seqItemLine(m *yaml.Node, key string, j int) int {
	if v := mappingValue(m, key); v != nil && v.Kind == yaml.SequenceNode && j < len(v.Content) {
		return v.Content[j].Line
	}
	return fieldLine(m, key)
}

// yamlLine matches the "line N: " that yaml.v3 puts in its messages.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })

// yamlUnknownField matches yaml.v3's message for an unknown field.
var yamlUnknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type \S+$`) })

// scriptError turns a yaml.v3 error into a Config error with name:line
// context.
func scriptError(name string, err error) *Error {
	var lines []string
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		lines = te.Errors
	} else {
		lines = []string{err.Error()}
	}
	for i, l := range lines {
		l = strings.TrimPrefix(l, "yaml: ")
		if m := yamlLine().FindStringSubmatch(l); m != nil {
			msg := m[2]
			if f := yamlUnknownField().FindStringSubmatch(msg); f != nil {
				msg = fmt.Sprintf("unknown field %q (allowed: replies, conversations; in a conversation: match, replies; in match: contains, matches; in a reply: expect, thought, text, tool_calls, finish, delay; in a tool call: name, arguments, id; in expect: role, contains, matches, images)", f[1])
			}
			msg = strings.ReplaceAll(msg, "model.scriptFile", "a script")
			lines[i] = fmt.Sprintf("%s:%s: %s", name, m[1], msg)
		} else {
			lines[i] = name + ": " + l
		}
	}
	return &Error{Kind: BadConfig, Message: "The model script is invalid: " + strings.Join(lines, "; "), Err: err}
}

func scriptLineError(name string, line int, msg string) *Error {
	return &Error{Kind: BadConfig, Message: fmt.Sprintf("The model script is invalid: %s:%d: %s", name, line, msg)}
}
