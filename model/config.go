package model

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults applied by [New] to a zero [Config] field.
const (
	// DefaultBaseURL is the server used when Config.BaseURL is empty.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultTimeout bounds one streamed completion, from sending the
	// request to the last chunk.
	DefaultTimeout = 10 * time.Minute
	// DefaultFirstByteTimeout bounds the wait for the response headers of
	// one HTTP attempt (connecting included). It is generous because a
	// local server may load the model before it answers.
	DefaultFirstByteTimeout = 3 * time.Minute
	// DefaultConnectTimeout bounds dialling and the TLS handshake when
	// Config.HTTPClient is nil.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultMaxRetries is the number of retries after a 408, 429 or 5xx.
	DefaultMaxRetries = 3
	// DefaultRetryBaseDelay is the first backoff delay; it doubles with
	// each retry, up to maxBackoff.
	DefaultRetryBaseDelay = 500 * time.Millisecond
)

// scriptPrefix selects the script provider in Config.Model.
const scriptPrefix = "script:"

// The wires a model can be served on: [Config.Provider] and the prefix of
// a "wire:model" name.
const (
	// WireOpenAI is the OpenAI-compatible Chat Completions API.
	WireOpenAI = "openai"
	// WireAnthropic is the Anthropic Messages API.
	WireAnthropic = "anthropic"
)

// Endpoint is where the models of one wire are served.
type Endpoint struct {
	BaseURL string // empty means the wire's default
	APIKey  string
}

// Config selects and configures a [Provider]. The zero value of every
// field but Model is a sensible default.
type Config struct {
	// Provider is the wire of Model: [WireOpenAI] (also for "") or
	// [WireAnthropic].
	Provider string
	// Others are the endpoints of the other wires. With any set, [New]
	// returns a [Router]: a model named "anthropic:NAME" or "openai:NAME"
	// (in a request or in Model) goes to that wire's endpoint.
	Others map[string]Endpoint
	// ThinkingBudget enables Anthropic extended thinking with this many
	// tokens (at least 1024); 0 derives it from ReasoningEffort.
	ThinkingBudget int
	// ReasoningEffort is hermes's agent.reasoning_effort ("none", "low",
	// "medium", "high", "xhigh"), used for the thinking budget.
	ReasoningEffort string
	// Model is the model name sent to the server, or "script:FILE" for the
	// script provider. Empty makes [New] return [ErrNoModel].
	Model string
	// BaseURL is the OpenAI-compatible API root, ending in /v1 for most
	// servers. Empty means [DefaultBaseURL].
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Timeout bounds each HTTP attempt of a streamed completion, from
	// sending the request to the last chunk; 0 means [DefaultTimeout].
	Timeout time.Duration
	// FirstByteTimeout bounds the wait for response headers of each HTTP
	// attempt, connecting included; 0 means [DefaultFirstByteTimeout].
	FirstByteTimeout time.Duration
	// MaxRetries is the number of retries after HTTP 408, 429 and 5xx, with
	// exponential backoff and jitter, honouring Retry-After. 0 means
	// [DefaultMaxRetries]; a negative value disables retries.
	MaxRetries int
	// RetryBaseDelay is the first backoff delay; 0 means
	// [DefaultRetryBaseDelay]. Tests set it small.
	RetryBaseDelay time.Duration
	// RecordPath, when set, makes the provider write the conversation to
	// this file in script format after every completed reply (--record).
	RecordPath string
	// HTTPClient replaces the default client, which dials with
	// [DefaultConnectTimeout]. Optional, for tests.
	HTTPClient *http.Client
	// Log receives retries and recording failures; nil discards them.
	Log *slog.Logger
}

// New returns the provider selected by cfg.Model: the script provider for
// "script:FILE", [ErrNoModel] for "", the Anthropic provider when
// cfg.Provider is [WireAnthropic] or the model is "anthropic:NAME", a
// [Router] when cfg.Others names other wires, and the OpenAI-compatible
// provider otherwise. With cfg.RecordPath set the provider also records every reply.
// Configuration problems are returned as [*Error] with Kind [BadConfig].
func New(cfg Config) (Provider, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	name := strings.TrimSpace(cfg.Model)
	var (
		p   Provider
		err error
	)
	switch {
	case name == "":
		return nil, ErrNoModel
	case strings.HasPrefix(name, scriptPrefix):
		p, err = LoadScript(strings.TrimPrefix(name, scriptPrefix))
	default:
		cfg.Model = name
		p, err = newRouter(cfg)
	}
	if err != nil {
		return nil, err
	}
	if cfg.RecordPath != "" {
		p = newRecorder(p, cfg.RecordPath, cfg.Log)
	}
	return p, nil
}

// parseBaseURL checks that s is an absolute http or https URL.
func parseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, configError(fmt.Sprintf("The model base URL %q is not a valid URL. Fix --base-url, OPENAI_BASE_URL or model.base_url in $HERMES_HOME/config.yaml.", s), err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, configError(fmt.Sprintf("The model base URL %q must start with http:// or https:// and name a host, for example http://localhost:8080/v1. Fix --base-url, OPENAI_BASE_URL or model.base_url in $HERMES_HOME/config.yaml.", s), nil)
	}
	return u, nil
}

func configError(msg string, err error) *Error {
	return &Error{Kind: BadConfig, Message: msg, Err: err}
}
