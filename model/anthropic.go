package model

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Defaults of the Anthropic provider.
const (
	// DefaultAnthropicBaseURL is the Messages API root used when the
	// configuration names none; the SDK appends /v1/messages.
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	// DefaultAnthropicMaxTokens is the reply cap sent when a request sets
	// none (the Messages API requires one). A thinking budget is added on top.
	DefaultAnthropicMaxTokens = 16384
	// cacheBreakpoints is how many trailing messages get a cache breakpoint
	// besides the system prompt (hermes's "system_and_3").
	cacheBreakpoints = 3
	// minThinkingBudget is the smallest budget the API accepts.
	minThinkingBudget = 1024
)

// effortBudgets maps hermes's agent.reasoning_effort to a thinking budget.
var effortBudgets = map[string]int{
	"minimal": minThinkingBudget,
	"low":     2048,
	"medium":  8192,
	"high":    16384,
	"xhigh":   32768,
	"max":     32768,
}

// ThinkingBudgetFor returns the thinking budget for a reasoning effort
// ("low", "medium", "high", …; "none" or "" gives 0) and whether the effort
// is known.
func ThinkingBudgetFor(effort string) (int, bool) {
	e := strings.ToLower(strings.TrimSpace(effort))
	if e == "" || e == "none" || e == "off" {
		return 0, true
	}
	b, ok := effortBudgets[e]
	return b, ok
}

// anthropicProvider streams the Anthropic Messages API. It is immutable
// after construction and safe for concurrent use.
type anthropicProvider struct {
	svc            anthropic.MessageService
	model          string
	baseURL        string // for messages, without a trailing slash
	hasKey         bool
	thinkingBudget int
	timeout        time.Duration
	firstByte      time.Duration
	maxRetries     int
	retryBaseDelay time.Duration
	log            *slog.Logger
}

var _ Provider = (*anthropicProvider)(nil)

// newAnthropic builds the Anthropic provider. It reads no environment
// variables: the caller resolves configuration.
func newAnthropic(cfg Config) (*anthropicProvider, error) {
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultAnthropicBaseURL
	}
	if _, err := parseAnthropicBaseURL(base); err != nil {
		return nil, err
	}
	// Users often copy ".../v1" from OpenAI habits; the SDK adds v1/ itself.
	base = strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
	client := cfg.HTTPClient
	if client == nil {
		client = defaultHTTPClient()
	}
	budget := cfg.ThinkingBudget
	if budget == 0 && cfg.ReasoningEffort != "" {
		b, ok := ThinkingBudgetFor(cfg.ReasoningEffort)
		if !ok {
			return nil, configError(fmt.Sprintf("The reasoning effort %q is not one of none, low, medium, high, xhigh. Fix agent.reasoning_effort in $HERMES_HOME/config.yaml.", cfg.ReasoningEffort), nil)
		}
		budget = b
	}
	if budget > 0 && budget < minThinkingBudget {
		budget = minThinkingBudget
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0), // retries are ours: see Stream
	}
	if cfg.APIKey != "" {
		// The SDK sends the key as a bearer token; gateways and older
		// servers read the documented x-api-key header, so send both.
		opts = append(opts, option.WithAPIKey(cfg.APIKey), option.WithHeader("x-api-key", cfg.APIKey))
	}
	p := &anthropicProvider{
		svc:            anthropic.NewMessageService(opts...),
		model:          cfg.Model,
		baseURL:        base,
		hasKey:         cfg.APIKey != "",
		thinkingBudget: max(budget, 0),
		timeout:        orDefault(cfg.Timeout, DefaultTimeout),
		firstByte:      orDefault(cfg.FirstByteTimeout, DefaultFirstByteTimeout),
		maxRetries:     cfg.MaxRetries,
		retryBaseDelay: orDefault(cfg.RetryBaseDelay, DefaultRetryBaseDelay),
		log:            cfg.Log,
	}
	switch {
	case p.maxRetries == 0:
		p.maxRetries = DefaultMaxRetries
	case p.maxRetries < 0:
		p.maxRetries = 0
	}
	return p, nil
}

func parseAnthropicBaseURL(s string) (string, error) {
	if _, err := parseBaseURL(s); err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Message = strings.ReplaceAll(e.Message, "--base-url, OPENAI_BASE_URL or model.base_url", "ANTHROPIC_BASE_URL or model.base_url")
			e.Message = strings.ReplaceAll(e.Message, "http://localhost:8080/v1", "https://api.anthropic.com")
		}
		return "", err
	}
	return s, nil
}

// Name returns "anthropic".
func (p *anthropicProvider) Name() string { return "anthropic" }

// Stream sends req to the Messages API as a stream. It retries HTTP 408,
// 429, 5xx and 529 answers, and an overloaded_error event that arrives
// before any delta, waiting as retry-after asks or with exponential backoff.
func (p *anthropicProvider) Stream(ctx context.Context, req Request, emit func(Delta)) (*Reply, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		reply, fail, err := p.attempt(ctx, params, emit)
		if fail == nil {
			if reply != nil {
				p.logCache(reply.Usage)
			}
			return reply, err
		}
		if !fail.retryable() || attempt >= p.maxRetries {
			return nil, p.httpError(fail, string(params.Model), attempt)
		}
		delay, ok := fail.retryAfter()
		if !ok {
			delay = backoff(p.retryBaseDelay, attempt)
		} else if delay > maxRetryAfter {
			return nil, p.httpError(fail, string(params.Model), attempt)
		}
		p.log.Warn("model server error, retrying", "provider", "anthropic", "status", fail.status, "attempt", attempt+1, "delay", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("model request: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// logCache logs the prompt cache's use by one reply.
func (p *anthropicProvider) logCache(u Usage) {
	if r := u.CacheHitRatio(); r >= 0 {
		p.log.Info("prompt cache", "provider", "anthropic", "input_tokens", u.InputTokens,
			"cache_read", u.CachedReadTokens, "cache_write", u.CacheWriteTokens, "hit_ratio", fmt.Sprintf("%.0f%%", 100*r))
	}
}

// attempt makes one HTTP request: it returns a reply, an HTTP failure that
// may be retried, or a final error.
func (p *anthropicProvider) attempt(ctx context.Context, params anthropic.MessageNewParams, emit func(Delta)) (*Reply, *httpFailure, error) {
	actx, cancel := context.WithTimeoutCause(ctx, p.timeout, errTimeout)
	defer cancel()
	capture := &responseCapture{firstByte: p.firstByte}
	stream := p.svc.NewStreaming(actx, params, option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return capture.middleware(r, next)
	}))
	defer stream.Close()
	if err := stream.Err(); err != nil {
		if f := capture.failure(); f != nil && ctx.Err() == nil && context.Cause(actx) != errTimeout {
			return nil, f, nil
		}
		if !capture.sent {
			return nil, nil, fmt.Errorf("build model request: %w", err)
		}
		return nil, nil, p.transportError(ctx, actx, capture, err)
	}
	var a messageAssembler
	for stream.Next() {
		a.add(stream.Current(), emit)
	}
	if err := stream.Err(); err != nil {
		if ae, ok := errors.AsType[*anthropic.Error](err); ok && !a.emitted && ctx.Err() == nil {
			// An error event before anything was streamed: retry it like the
			// HTTP status it stands for.
			if status := streamErrorStatus(string(ae.Type())); status != 0 {
				return nil, &httpFailure{status: status, header: http.Header{}, body: []byte(ae.RawJSON())}, nil
			}
		}
		return nil, nil, p.streamError(ctx, actx, string(params.Model), err)
	}
	if a.events == 0 {
		return nil, nil, &Error{Kind: BadResponse, Message: fmt.Sprintf(
			"The model server at %s answered without a Messages stream. Check that the base URL points to the Anthropic API (for example https://api.anthropic.com).",
			p.baseURL)}
	}
	return a.reply(), nil, nil
}

// streamErrorStatus maps an in-stream error type to the HTTP status it has
// when sent as an answer, for the ones worth retrying.
func streamErrorStatus(typ string) int {
	switch typ {
	case "overloaded_error":
		return 529
	case "api_error":
		return http.StatusInternalServerError
	case "rate_limit_error":
		return http.StatusTooManyRequests
	}
	return 0
}

// messageAssembler builds a [Reply] from Messages stream events.
type messageAssembler struct {
	text, thought strings.Builder
	blocks        []*streamBlock
	stop          string
	usage         Usage
	events        int
	emitted       bool // a delta reached emit
}

// streamBlock is one content block whose pieces are still arriving.
type streamBlock struct {
	typ       string // text, thinking, redacted_thinking, tool_use, …
	id, name  string
	args      strings.Builder
	thinking  strings.Builder
	signature string
	data      string
}

func (a *messageAssembler) block(i int64) *streamBlock {
	if i < 0 || i >= int64(len(a.blocks)) {
		return nil
	}
	return a.blocks[i]
}

func (a *messageAssembler) add(ev anthropic.MessageStreamEventUnion, emit func(Delta)) {
	a.events++
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.usage.InputTokens = int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens)
		a.usage.CachedReadTokens = int(u.CacheReadInputTokens)
		a.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		a.usage.OutputTokens = int(u.OutputTokens)
	case "content_block_start":
		cb := ev.ContentBlock
		for int64(len(a.blocks)) <= ev.Index {
			a.blocks = append(a.blocks, &streamBlock{})
		}
		b := a.blocks[ev.Index]
		b.typ, b.id, b.name, b.data, b.signature = cb.Type, cb.ID, cb.Name, cb.Data, cb.Signature
		switch cb.Type {
		case "text":
			a.emitText(cb.Text, emit)
		case "thinking":
			a.emitThought(b, cb.Thinking, emit)
		}
	case "content_block_delta":
		b := a.block(ev.Index)
		if b == nil {
			return
		}
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			a.emitText(d.Text, emit)
		case "thinking_delta":
			a.emitThought(b, d.Thinking, emit)
		case "signature_delta":
			b.signature += d.Signature
		case "input_json_delta":
			b.args.WriteString(d.PartialJSON)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = string(ev.Delta.StopReason)
		}
		u := ev.Usage
		if u.JSON.OutputTokens.Valid() {
			a.usage.OutputTokens = int(u.OutputTokens)
		}
		// Some servers report the input only at the end.
		if u.JSON.InputTokens.Valid() && u.InputTokens+u.CacheReadInputTokens+u.CacheCreationInputTokens > 0 {
			a.usage.InputTokens = int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens)
			a.usage.CachedReadTokens = int(u.CacheReadInputTokens)
			a.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		}
	}
}

func (a *messageAssembler) emitText(s string, emit func(Delta)) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.emitted = true
	emit(Delta{Text: s})
}

func (a *messageAssembler) emitThought(b *streamBlock, s string, emit func(Delta)) {
	if s == "" {
		return
	}
	b.thinking.WriteString(s)
	a.thought.WriteString(s)
	a.emitted = true
	emit(Delta{Thought: s})
}

func (a *messageAssembler) reply() *Reply {
	r := &Reply{Text: a.text.String(), Thought: a.thought.String(), Usage: a.usage}
	r.Usage.TotalTokens = r.Usage.InputTokens + r.Usage.OutputTokens
	for _, b := range a.blocks {
		switch b.typ {
		case "thinking":
			r.Reasoning = append(r.Reasoning, ReasoningBlock{Thinking: b.thinking.String(), Signature: b.signature})
		case "redacted_thinking":
			r.Reasoning = append(r.Reasoning, ReasoningBlock{Redacted: b.data})
		case "tool_use":
			args := b.args.String()
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			id := b.id
			if id == "" {
				id = newCallID()
			}
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: b.name, Arguments: args})
		}
	}
	switch a.stop {
	case "max_tokens", "model_context_window_exceeded":
		r.FinishReason = Length
	case "refusal":
		r.FinishReason = ContentFilter
	case "tool_use":
		r.FinishReason = ToolCalls
	default:
		r.FinishReason = Stop
	}
	if len(r.ToolCalls) > 0 {
		r.FinishReason = ToolCalls
	}
	return r
}

// params converts a Request to the SDK's parameters, with prompt-cache
// breakpoints on the system prompt and the last three messages.
func (p *anthropicProvider) params(req Request) (anthropic.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	thinking := p.thinkingBudget > 0 && thinkingAllowed(req.Messages)
	params := anthropic.MessageNewParams{Model: anthropic.Model(model)}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultAnthropicMaxTokens
	}
	if thinking {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(p.thinkingBudget))
		maxTokens += p.thinkingBudget
	}
	params.MaxTokens = int64(maxTokens)
	var system []string
	for _, m := range req.Messages {
		if m.Role == RoleSystem && m.Content != "" {
			system = append(system, m.Content)
		}
	}
	if len(system) > 0 {
		params.System = []anthropic.TextBlockParam{{Text: strings.Join(system, "\n\n"), CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	params.Messages = anthropicMessages(req.Messages, thinking)
	for _, t := range req.Tools {
		tp, err := toolParam(t)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return params, nil
}

// thinkingAllowed reports whether extended thinking may be enabled for a
// request: the API refuses it in the middle of a tool-use loop whose
// assistant message carries no signed thinking (for example one written
// by another provider before a model switch).
func thinkingAllowed(msgs []Message) bool {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != RoleTool {
		return true
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			return len(msgs[i].Reasoning) > 0
		}
	}
	return true
}

// toolParam converts a tool definition; the JSON Schema's properties and
// required go to their fields and any other keyword rides along.
func toolParam(t ToolDef) (anthropic.ToolParam, error) {
	tp := anthropic.ToolParam{Name: t.Name}
	if t.Description != "" {
		tp.Description = anthropic.String(t.Description)
	}
	schema := anthropic.ToolInputSchemaParam{Properties: map[string]any{}}
	for k, v := range t.Parameters {
		switch k {
		case "type":
		case "properties":
			schema.Properties = v
		case "required":
			switch r := v.(type) {
			case []string:
				schema.Required = r
			case []any:
				for _, x := range r {
					if s, ok := x.(string); ok {
						schema.Required = append(schema.Required, s)
					}
				}
			}
		default:
			if schema.ExtraFields == nil {
				schema.ExtraFields = map[string]any{}
			}
			schema.ExtraFields[k] = v
		}
	}
	tp.InputSchema = schema
	return tp, nil
}

// anthropicMessages converts the conversation (without system messages)
// to Messages API turns: consecutive tool results and user text share one
// user turn, tool-call ids are made valid for the API, and the last block
// of each of the last three source messages carries a cache breakpoint.
// With thinking on, assistant turns start with their signed or redacted
// thinking blocks exactly as received.
func anthropicMessages(msgs []Message, thinking bool) []anthropic.MessageParam {
	type turn struct {
		assistant bool
		blocks    []anthropic.ContentBlockParamUnion
	}
	var turns []turn
	type mark struct{ turn, block int }
	var marks []mark // the last cacheable block of each source message
	add := func(assistant bool, blocks []anthropic.ContentBlockParamUnion, cacheable int) {
		if len(blocks) == 0 {
			return
		}
		if n := len(turns); n > 0 && turns[n-1].assistant == assistant {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
		} else {
			turns = append(turns, turn{assistant: assistant, blocks: blocks})
		}
		if cacheable >= 0 {
			last := turns[len(turns)-1]
			marks = append(marks, mark{len(turns) - 1, len(last.blocks) - len(blocks) + cacheable})
		}
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleSystem:
			continue
		case RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if thinking {
				for _, r := range m.Reasoning {
					switch {
					case r.Redacted != "":
						blocks = append(blocks, anthropic.NewRedactedThinkingBlock(r.Redacted))
					case r.Signature != "":
						blocks = append(blocks, anthropic.NewThinkingBlock(r.Signature, r.Thinking))
					}
				}
			}
			cacheable := -1
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
				cacheable = len(blocks) - 1
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(anthropicToolID(c.ID), toolInput(c.Arguments), c.Name))
				cacheable = len(blocks) - 1
			}
			add(true, blocks, cacheable)
		case RoleTool:
			tr := anthropic.ToolResultBlockParam{ToolUseID: anthropicToolID(m.ToolCallID)}
			if m.Content != "" {
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: m.Content}})
			}
			for _, img := range m.Images {
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{Source: imageSource(img)}})
			}
			add(false, []anthropic.ContentBlockParamUnion{{OfToolResult: &tr}}, 0)
		default:
			var blocks []anthropic.ContentBlockParamUnion
			for _, img := range m.Images {
				blocks = append(blocks, anthropic.ContentBlockParamUnion{OfImage: &anthropic.ImageBlockParam{Source: imageSource(img)}})
			}
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			add(false, blocks, len(blocks)-1)
		}
	}
	for _, mk := range marks[max(0, len(marks)-cacheBreakpoints):] {
		if cc := turns[mk.turn].blocks[mk.block].GetCacheControl(); cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
		}
	}
	out := make([]anthropic.MessageParam, len(turns))
	for i, t := range turns {
		if t.assistant {
			out[i] = anthropic.NewAssistantMessage(t.blocks...)
		} else {
			out[i] = anthropic.NewUserMessage(t.blocks...)
		}
	}
	return out
}

// imageSource encodes an image as a base64 source, sniffing a missing MIME
// type.
func imageSource(img Image) anthropic.ImageBlockParamSourceUnion {
	mime := img.MIMEType
	if mime == "" {
		mime = http.DetectContentType(img.Data)
	}
	return anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
		Data: base64.StdEncoding.EncodeToString(img.Data), MediaType: anthropic.Base64ImageSourceMediaType(mime),
	}}
}

// toolInput returns a tool call's arguments as the JSON object the API
// wants; arguments that are not an object (a model's broken JSON) become
// an empty object, as the caller already answered them with an error.
func toolInput(args string) any {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return map[string]any{}
	}
	return json.RawMessage(args)
}

// anthropicToolID makes a tool-call id from another provider valid for the
// Messages API, which accepts only letters, digits, '_' and '-'.
func anthropicToolID(id string) string {
	if id == "" {
		return "call_none"
	}
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// transportError maps an error that happened before any response arrived.
func (p *anthropicProvider) transportError(ctx, actx context.Context, capture *responseCapture, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model request: %w", ctx.Err())
	}
	if context.Cause(actx) == errTimeout {
		return p.timeoutError(err)
	}
	why := "the connection failed"
	switch {
	case capture.timedOut.Load() || errors.Is(err, errFirstByte):
		why = fmt.Sprintf("it did not answer within %s", p.firstByte)
	case strings.Contains(err.Error(), "connection refused"):
		why = "connection refused"
	}
	return &Error{Kind: Unreachable, Err: err, Message: fmt.Sprintf(
		"Cannot reach the Anthropic API at %s: %s. Check your network, or ANTHROPIC_BASE_URL / model.base_url in $HERMES_HOME/config.yaml.", p.baseURL, why)}
}

// streamError maps an error that ended a stream after the response began.
func (p *anthropicProvider) streamError(ctx, actx context.Context, model string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model stream: %w", ctx.Err())
	}
	if context.Cause(actx) == errTimeout {
		return p.timeoutError(err)
	}
	if ae, ok := errors.AsType[*anthropic.Error](err); ok {
		msg, _ := errorBodyMessage([]byte(ae.RawJSON()))
		if isContextLength(string(ae.Type()), msg) {
			return contextError(model, 0, msg, err)
		}
		return &Error{Kind: Server, Err: err, Message: fmt.Sprintf(
			"The Anthropic API at %s reported an error during the reply: %s. Try again.", p.baseURL, truncate(msg, 300))}
	}
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &Error{Kind: BadResponse, Err: err, Message: fmt.Sprintf(
			"The model server at %s sent a malformed Messages stream. Check that the base URL points to the Anthropic API.", p.baseURL)}
	}
	return &Error{Kind: Unreachable, Err: err, Message: fmt.Sprintf(
		"The connection to the Anthropic API at %s broke during the reply. Try again.", p.baseURL)}
}

func (p *anthropicProvider) timeoutError(err error) error {
	return &Error{Kind: Timeout, Err: err, Message: fmt.Sprintf(
		"The Anthropic API at %s did not finish the reply within %s. Try again, or ask for a shorter answer.", p.baseURL, p.timeout)}
}

// httpError maps an HTTP error answer to an [*Error] naming the fix.
// Anthropic's bodies are {"type":"error","error":{"type","message"}}.
func (p *anthropicProvider) httpError(f *httpFailure, model string, retries int) error {
	msg, typ := errorBodyMessage(f.body)
	status := f.status
	cause := fmt.Errorf("anthropic: HTTP %d: %s", status, truncate(string(f.body), 500))
	e := &Error{Status: status, Err: cause}
	after := ""
	if retries > 0 {
		after = fmt.Sprintf(" and still failed after %d %s", retries, plural(retries, "retry", "retries"))
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = Auth
		if p.hasKey {
			e.Message = fmt.Sprintf("The Anthropic API at %s rejected the API key%s. Set ANTHROPIC_API_KEY to a valid key.", p.baseURL, detail(status, msg))
		} else {
			e.Message = fmt.Sprintf("The Anthropic API at %s needs an API key%s, and none is set. Set ANTHROPIC_API_KEY (in the environment or $HERMES_HOME/.env).", p.baseURL, detail(status, msg))
		}
	case typ == "not_found_error" && strings.Contains(strings.ToLower(msg), "model"):
		e.Kind = ModelNotFound
		e.Message = fmt.Sprintf("The Anthropic API does not know the model %q%s. Choose another model with --model, HERMES_MODEL or model.default in $HERMES_HOME/config.yaml.", model, detail(status, msg))
	case status == http.StatusNotFound:
		e.Kind = EndpointNotFound
		e.Message = fmt.Sprintf("The server at %s has no Messages endpoint at %s/v1/messages%s. Check ANTHROPIC_BASE_URL or model.base_url in $HERMES_HOME/config.yaml.", p.baseURL, p.baseURL, detail(status, msg))
	case status == http.StatusTooManyRequests:
		e.Kind = RateLimited
		e.Message = fmt.Sprintf("The Anthropic API is rate limiting requests%s%s. Wait a minute and try again, or check your plan's rate limits.", detail(status, msg), after)
	case status == 529 || typ == "overloaded_error":
		e.Kind = Server
		e.Message = fmt.Sprintf("The Anthropic API is overloaded%s%s. Try again in a few minutes.", detail(status, msg), after)
	case status >= 500 || status == http.StatusRequestTimeout:
		e.Kind = Server
		e.Message = fmt.Sprintf("The Anthropic API at %s failed%s%s. Try again later.", p.baseURL, detail(status, msg), after)
	case status == http.StatusRequestEntityTooLarge || isContextLength(typ, msg):
		return contextError(model, status, msg, cause)
	default:
		e.Kind = BadRequest
		e.Message = fmt.Sprintf("The Anthropic API rejected the request for model %q%s.", model, detail(status, msg))
	}
	return e
}
