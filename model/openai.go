package model

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

const (
	// maxBackoff caps the exponential backoff between retries.
	maxBackoff = 8 * time.Second
	// maxRetryAfter is the longest Retry-After we wait for; a server that
	// asks for more gets its error reported at once.
	maxRetryAfter = 60 * time.Second
	// maxErrorBody is how much of an error response is read.
	maxErrorBody = 64 << 10
)

var (
	errTimeout   = errors.New("model: request timed out")
	errFirstByte = errors.New("model: no response headers in time")
)

// openAIProvider streams Chat Completions from an OpenAI-compatible server.
// It is immutable after construction and safe for concurrent use.
type openAIProvider struct {
	svc            openai.ChatCompletionService
	model          string
	baseURL        string // for messages, without a trailing slash
	hasKey         bool
	completionMax  bool // send max_completion_tokens instead of max_tokens
	timeout        time.Duration
	firstByte      time.Duration
	maxRetries     int
	retryBaseDelay time.Duration
	log            *slog.Logger
}

var _ Provider = (*openAIProvider)(nil)

// newOpenAI builds the OpenAI-compatible provider. It reads no environment
// variables: the caller resolves configuration.
func newOpenAI(cfg Config) (*openAIProvider, error) {
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := parseBaseURL(base)
	if err != nil {
		return nil, err
	}
	client := cfg.HTTPClient
	if client == nil {
		client = defaultHTTPClient()
	}
	p := &openAIProvider{
		svc: openai.NewChatCompletionService(
			option.WithBaseURL(base),
			option.WithHTTPClient(client),
			option.WithAPIKey(cfg.APIKey),
			option.WithMaxRetries(0), // retries are ours: see Stream
		),
		model:          cfg.Model,
		baseURL:        strings.TrimRight(base, "/"),
		hasKey:         cfg.APIKey != "",
		completionMax:  u.Hostname() == "api.openai.com",
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

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// defaultHTTPClient dials with DefaultConnectTimeout; the first-byte and
// total timeouts are applied per request.
func defaultHTTPClient() *http.Client {
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // replaced by a wrapper: keep it as it is
		return &http.Client{}
	}
	t := base.Clone()
	t.DialContext = (&net.Dialer{Timeout: DefaultConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = DefaultConnectTimeout
	return &http.Client{Transport: t}
}

// Name returns "openai-compatible".
func (p *openAIProvider) Name() string { return "openai-compatible" }

// Stream sends req as a streamed chat completion. It retries HTTP 408, 429
// and 5xx answers before any delta was emitted, waiting as Retry-After asks
// or with exponential backoff and jitter.
func (p *openAIProvider) Stream(ctx context.Context, req Request, emit func(Delta)) (*Reply, error) {
	params := p.params(req)
	body, err := requestBody(params, req.Tools)
	if err != nil {
		return nil, fmt.Errorf("build model request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		reply, fail, err := p.attempt(ctx, params, body, emit)
		if fail == nil {
			return reply, err
		}
		if !fail.retryable() || attempt >= p.maxRetries {
			return nil, p.httpError(fail, params.Model, attempt)
		}
		delay, ok := fail.retryAfter()
		if !ok {
			delay = backoff(p.retryBaseDelay, attempt)
		} else if delay > maxRetryAfter {
			return nil, p.httpError(fail, params.Model, attempt)
		}
		p.log.Warn("model server error, retrying", "status", fail.status, "attempt", attempt+1, "delay", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("model request: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// backoff returns base·2^attempt capped at maxBackoff, less up to a
// quarter of jitter.
func backoff(base time.Duration, attempt int) time.Duration {
	d := maxBackoff
	if attempt < 30 && base<<attempt < maxBackoff && base<<attempt > 0 {
		d = base << attempt
	}
	if j := int64(d / 4); j > 0 {
		d -= time.Duration(rand.Int64N(j))
	}
	return d
}

// httpFailure is an HTTP error answer of one attempt.
type httpFailure struct {
	status int
	header http.Header
	body   []byte
}

func (f *httpFailure) retryable() bool {
	if f.status == http.StatusTooManyRequests {
		_, code := errorBodyMessage(f.body)
		return code != "insufficient_quota"
	}
	return f.status == http.StatusRequestTimeout || f.status >= 500
}

// retryAfter reads Retry-After-Ms or Retry-After (seconds or a date).
func (f *httpFailure) retryAfter() (time.Duration, bool) {
	if v := f.header.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := f.header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e9 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// attempt makes one HTTP request. It returns either a reply, an HTTP
// failure that may be retried, or a final error.
func (p *openAIProvider) attempt(ctx context.Context, params openai.ChatCompletionNewParams, body []byte, emit func(Delta)) (*Reply, *httpFailure, error) {
	actx, cancel := context.WithTimeoutCause(ctx, p.timeout, errTimeout)
	defer cancel()
	capture := &responseCapture{firstByte: p.firstByte}
	opts := []option.RequestOption{option.WithMiddleware(capture.middleware)}
	if body != nil {
		// The body is already encoded (requestBody): the SDK encodes only
		// empty params, which the body replaces; it still adds "stream".
		opts = append(opts, option.WithRequestBody("application/json", bytes.Clone(body)))
		params = openai.ChatCompletionNewParams{}
	}
	stream := p.svc.NewStreaming(actx, params, opts...)
	defer stream.Close()
	if err := stream.Err(); err != nil {
		if f := capture.failure(); f != nil && ctx.Err() == nil && context.Cause(actx) != errTimeout {
			return nil, f, nil
		}
		if !capture.sent {
			// The SDK failed before sending: the request itself is bad
			// (for example a tool schema that cannot be encoded).
			return nil, nil, fmt.Errorf("build model request: %w", err)
		}
		return nil, nil, p.transportError(ctx, actx, capture, err)
	}
	var a assembler
	for stream.Next() {
		p.addChunk(&a, stream.Current(), emit)
	}
	if err := stream.Err(); err != nil {
		return nil, nil, p.streamError(ctx, actx, string(params.Model), err)
	}
	if a.chunks == 0 {
		return nil, nil, &Error{Kind: BadResponse, Message: fmt.Sprintf(
			"The model server at %s answered without a Chat Completions stream. Check that the base URL points to an OpenAI-compatible API (usually ending in /v1).",
			p.baseURL)}
	}
	return a.reply(), nil, nil
}

// addChunk adds one streamed chunk to a and emits its text and reasoning.
func (p *openAIProvider) addChunk(a *assembler, chunk openai.ChatCompletionChunk, emit func(Delta)) {
	a.chunks++
	if chunk.JSON.Usage.Valid() {
		u := chunk.Usage
		a.usage = Usage{
			InputTokens:      int(u.PromptTokens),
			OutputTokens:     int(u.CompletionTokens),
			TotalTokens:      int(u.TotalTokens),
			ThoughtTokens:    int(u.CompletionTokensDetails.ReasoningTokens),
			CachedReadTokens: int(u.PromptTokensDetails.CachedTokens),
		}
		if a.usage.TotalTokens == 0 {
			a.usage.TotalTokens = a.usage.InputTokens + a.usage.OutputTokens
		}
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue
		}
		d := choice.Delta
		if t := reasoningText(d.JSON.ExtraFields); t != "" {
			a.thought.WriteString(t)
			emit(Delta{Thought: t})
		}
		for _, text := range []string{d.Content, d.Refusal} {
			if text != "" {
				a.text.WriteString(text)
				emit(Delta{Text: text})
			}
		}
		for _, tc := range d.ToolCalls {
			a.toolCall(tc.Index, tc.JSON.Index.Valid(), tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
		}
	}
}

// reasoningText reads the non-standard reasoning delta: reasoning_content
// (DeepSeek, vLLM, llama.cpp) or reasoning (OpenRouter, Ollama). Servers
// that send both send the same text, so only one is used.
func reasoningText(extra map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		// The SDK marks unknown fields "invalid" but keeps their raw JSON.
		f, ok := extra[key]
		if !ok || f.Raw() == "" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// params converts a Request to the SDK's parameters.
func (p *openAIProvider) params(req Request) openai.ChatCompletionNewParams {
	model := req.Model
	if model == "" {
		model = p.model
	}
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		Messages:      make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	for _, m := range req.Messages {
		params.Messages = append(params.Messages, messageParam(m))
	}
	if allEncoded(req.Tools) {
		req.Tools = nil // requestBody adds them, already encoded
	}
	for _, t := range req.Tools {
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: t.Parameters}
		if def.Parameters == nil {
			def.Parameters = shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		}
		if t.Description != "" {
			def.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(def))
	}
	if req.MaxTokens > 0 {
		if p.completionMax {
			params.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	return params
}

// allEncoded reports whether every tool comes with its schema encoded
// (ToolDef.ParametersJSON): then the request body is built around those
// encodings (requestBody) instead of by the SDK, whose encoder walks every
// schema map and compacts the result once per nesting level on every
// request (about 1 ms for the built-in tools, several on a cold process).
func allEncoded(tools []ToolDef) bool {
	if len(tools) == 0 {
		return false
	}
	for _, t := range tools {
		if len(t.ParametersJSON) == 0 {
			return false
		}
	}
	return true
}

// requestBody returns the JSON body of a request whose tools are all
// encoded (allEncoded): params, which p.params left without the tools,
// encoded by the SDK, with the tools appended as the SDK would send them.
// It returns nil when the SDK is to encode the whole request.
func requestBody(params openai.ChatCompletionNewParams, tools []ToolDef) ([]byte, error) {
	if !allEncoded(tools) {
		return nil, nil
	}
	head, err := params.MarshalJSON()
	if err != nil {
		return nil, err
	}
	head = bytes.TrimSpace(head)
	if len(head) < 2 || head[len(head)-1] != '}' {
		return nil, fmt.Errorf("encode request: unexpected %.20q", head)
	}
	size := len(head) + 16
	for _, t := range tools {
		size += len(t.Name) + len(t.Description) + len(t.ParametersJSON) + 64
	}
	b := make([]byte, 0, size)
	b = append(b, head[:len(head)-1]...)
	if len(head) > 2 {
		b = append(b, ',')
	}
	b = append(b, `"tools":[`...)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"function","function":{"name":`...)
		b = appendJSONString(b, t.Name)
		if t.Description != "" {
			b = append(b, `,"description":`...)
			b = appendJSONString(b, t.Description)
		}
		b = append(b, `,"parameters":`...)
		b = append(b, t.ParametersJSON...)
		b = append(b, `}}`...)
	}
	return append(b, `]}`...), nil
}

// appendJSONString appends s encoded as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	enc, _ := json.Marshal(s) // a string always encodes
	return append(b, enc...)
}

// messageParam converts one message. Thoughts are not sent back; a role
// other than system, assistant or tool is sent as user.
func messageParam(m Message) openai.ChatCompletionMessageParamUnion {
	switch m.Role {
	case RoleSystem:
		return openai.SystemMessage(m.Content)
	case RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(m.Content)
		}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
	case RoleTool:
		return openai.ToolMessage(m.Content, m.ToolCallID)
	}
	if len(m.Images) == 0 {
		return openai.UserMessage(m.Content)
	}
	parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(m.Images)+1)
	if m.Content != "" {
		parts = append(parts, openai.TextContentPart(m.Content))
	}
	for _, img := range m.Images {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)}))
	}
	return openai.UserMessage(parts)
}

// dataURL encodes an image as a data: URL, sniffing a missing MIME type.
func dataURL(img Image) string {
	mime := img.MIMEType
	if mime == "" {
		mime = http.DetectContentType(img.Data)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// responseCapture is an SDK middleware for one attempt: it bounds the wait
// for response headers and keeps the status, headers and body of an error
// answer (the SDK cannot parse every server's error body).
type responseCapture struct {
	firstByte time.Duration
	timedOut  atomic.Bool
	// Set by middleware on the goroutine that calls NewStreaming.
	sent   bool // the request reached the HTTP client
	status int
	header http.Header
	body   []byte
}

func (c *responseCapture) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	c.sent = true
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(c.firstByte, func() {
		c.timedOut.Store(true)
		cancel(errFirstByte)
	})
	res, err := next(req.WithContext(ctx))
	if !timer.Stop() && c.timedOut.Load() {
		if err == nil {
			_ = res.Body.Close()
		}
		cancel(nil)
		return nil, fmt.Errorf("%w after %s", errFirstByte, c.firstByte)
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: func() { cancel(nil) }}
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		c.status, c.header, c.body = res.StatusCode, res.Header, body
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return res, nil
}

// failure returns the captured HTTP error answer, if any.
func (c *responseCapture) failure() *httpFailure {
	if c.status < 400 {
		return nil
	}
	return &httpFailure{status: c.status, header: c.header, body: c.body}
}

// cancelOnClose releases a request's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

// Close closes the body and releases the context.
func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// transportError maps an error that happened before any response arrived.
func (p *openAIProvider) transportError(ctx, actx context.Context, capture *responseCapture, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model request: %w", ctx.Err())
	}
	if context.Cause(actx) == errTimeout {
		return p.timeoutError(err)
	}
	fix := "Check that the server is running and that the base URL is right (--base-url, OPENAI_BASE_URL or model.base_url in $HERMES_HOME/config.yaml)."
	var why string
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case capture.timedOut.Load() || errors.Is(err, errFirstByte):
		why = fmt.Sprintf("it did not answer within %s", p.firstByte)
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused"
	case errors.As(err, &dnsErr):
		why = fmt.Sprintf("the host name %q could not be resolved", dnsErr.Name)
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		why = "its TLS certificate is not trusted"
		fix = "Check the base URL, or use http:// for a local server without TLS."
	case errors.As(err, &netErr) && netErr.Timeout():
		why = "the connection timed out"
	default:
		why = "the connection failed"
	}
	return &Error{Kind: Unreachable, Err: err, Message: fmt.Sprintf(
		"Cannot reach the model server at %s: %s. %s", p.baseURL, why, fix)}
}

// streamError maps an error that ended a stream after the response began.
func (p *openAIProvider) streamError(ctx, actx context.Context, model string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model stream: %w", ctx.Err())
	}
	if context.Cause(actx) == errTimeout {
		return p.timeoutError(err)
	}
	if se, ok := errors.AsType[*ssestream.StreamError](err); ok {
		msg, code := errorBodyMessage(se.Event.Data)
		if isContextLength(code, msg) {
			return contextError(model, 0, msg, err)
		}
		return &Error{Kind: Server, Err: err, Message: fmt.Sprintf(
			"The model server at %s reported an error during the reply: %s. Try again.", p.baseURL, truncate(msg, 300))}
	}
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &Error{Kind: BadResponse, Err: err, Message: fmt.Sprintf(
			"The model server at %s sent a malformed stream. Check that the base URL points to an OpenAI-compatible API.", p.baseURL)}
	}
	return &Error{Kind: Unreachable, Err: err, Message: fmt.Sprintf(
		"The connection to the model server at %s broke during the reply. Try again.", p.baseURL)}
}

func (p *openAIProvider) timeoutError(err error) error {
	return &Error{Kind: Timeout, Err: err, Message: fmt.Sprintf(
		"The model server at %s did not finish the reply within %s. Try again, or ask for a shorter answer.", p.baseURL, p.timeout)}
}

// contextError is the error for a conversation longer than the model's
// context window, whichever provider reported it (status 0: in the stream).
func contextError(model string, status int, msg string, err error) error {
	return &Error{Kind: ContextLength, Status: status, Err: err, Message: fmt.Sprintf(
		"The conversation is too long for the model %q%s. Start a new session, or attach less content.", model, detail(status, msg))}
}

// httpError maps an HTTP error answer to an [*Error] naming the fix.
func (p *openAIProvider) httpError(f *httpFailure, model string, retries int) error {
	msg, code := errorBodyMessage(f.body)
	status := f.status
	cause := fmt.Errorf("model server: HTTP %d: %s", status, truncate(string(f.body), 500))
	e := &Error{Status: status, Err: cause}
	after := ""
	if retries > 0 {
		after = fmt.Sprintf(" and still failed after %d %s", retries, plural(retries, "retry", "retries"))
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = Auth
		if p.hasKey {
			e.Message = fmt.Sprintf("The model server at %s rejected the API key%s. Set OPENAI_API_KEY to a valid key, or set model.api_key_env in $HERMES_HOME/config.yaml to the name of the variable that holds one.", p.baseURL, detail(status, msg))
		} else {
			e.Message = fmt.Sprintf("The model server at %s needs an API key%s, and none is set. Set OPENAI_API_KEY, or set model.api_key_env in $HERMES_HOME/config.yaml to the name of the variable that holds the key.", p.baseURL, detail(status, msg))
		}
	case isModelNotFound(status, code, msg):
		e.Kind = ModelNotFound
		e.Message = fmt.Sprintf("The model server at %s does not know the model %q%s. Choose another model with --model, HERMES_MODEL or model.default in $HERMES_HOME/config.yaml.", p.baseURL, model, detail(status, msg))
	case status == http.StatusNotFound:
		e.Kind = EndpointNotFound
		e.Message = fmt.Sprintf("The model server at %s has no Chat Completions endpoint at %s/chat/completions%s. Check the base URL (--base-url, OPENAI_BASE_URL or model.base_url in $HERMES_HOME/config.yaml); OpenAI-compatible servers usually end in /v1.", p.baseURL, p.baseURL, detail(status, msg))
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		e.Kind = RateLimited
		e.Message = fmt.Sprintf("The model server at %s says your quota is used up%s. Check your plan and billing details.", p.baseURL, detail(status, msg))
	case status == http.StatusTooManyRequests:
		e.Kind = RateLimited
		e.Message = fmt.Sprintf("The model server at %s is rate limiting requests%s%s. Wait a minute and try again, or check your plan's rate limits.", p.baseURL, detail(status, msg), after)
	case status >= 500 || status == http.StatusRequestTimeout:
		e.Kind = Server
		e.Message = fmt.Sprintf("The model server at %s failed%s%s. Try again later.", p.baseURL, detail(status, msg), after)
	case isContextLength(code, msg):
		return contextError(model, status, msg, cause)
	default:
		e.Kind = BadRequest
		e.Message = fmt.Sprintf("The model server at %s rejected the request for model %q%s.", p.baseURL, model, detail(status, msg))
	}
	return e
}

// detail formats " (HTTP 404: message)".
func detail(status int, msg string) string {
	switch {
	case status == 0 && msg == "":
		return ""
	case status == 0:
		return " (" + truncate(msg, 300) + ")"
	case msg == "":
		return fmt.Sprintf(" (HTTP %d)", status)
	}
	return fmt.Sprintf(" (HTTP %d: %s)", status, truncate(msg, 300))
}

// errorBodyMessage extracts the message and code from an error body in the
// shapes servers use: {"error":{"message","code"}} (OpenAI, vLLM),
// {"error":"..."} (Ollama, llama.cpp), {"message":"..."}, {"detail":...}
// (FastAPI), or plain text.
func errorBodyMessage(body []byte) (msg, code string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return strings.TrimSpace(string(body)), ""
	}
	if len(v.Error) > 0 {
		var e struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &s) == nil:
			return s, ""
		case json.Unmarshal(v.Error, &e) == nil:
			code := ""
			if c, ok := e.Code.(string); ok {
				code = c
			}
			if code == "" {
				code = e.Type
			}
			return e.Message, code
		}
	}
	if v.Message != "" {
		return v.Message, ""
	}
	if len(v.Detail) > 0 {
		var s string
		if json.Unmarshal(v.Detail, &s) == nil {
			return s, ""
		}
		return string(v.Detail), ""
	}
	return strings.TrimSpace(string(body)), ""
}

// isModelNotFound recognises "unknown model" answers, which servers send
// as 404 (OpenAI, Ollama) or 400 (OpenRouter, vLLM).
func isModelNotFound(status int, code, msg string) bool {
	if code == "model_not_found" {
		return true
	}
	if status != http.StatusNotFound && status != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(msg)
	if !strings.Contains(m, "model") {
		return false
	}
	for _, s := range []string{"not found", "does not exist", "not exist", "unknown model", "invalid model", "not a valid model", "no such model"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// isContextLength recognises "conversation too long" answers.
func isContextLength(code, msg string) bool {
	if code == "context_length_exceeded" {
		return true
	}
	m := strings.ToLower(msg)
	for _, s := range []string{"context length", "context_length", "maximum context", "context window", "prompt is too long", "too many tokens", "context limit"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
