package model

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrNoModel is returned by [New] when no model is configured. The agent
// still starts and answers prompts with [NoModelHelp].
var ErrNoModel = errors.New("model: no model configured")

// NoModelHelp tells a user how to configure a model. The agent shows it as
// the answer to a prompt when [New] returned [ErrNoModel].
const NoModelHelp = "No language model is configured, so hermes-acp cannot answer yet.\n\n" +
	"Choose one in any of these ways (highest precedence first):\n" +
	"- start hermes-acp with `--model NAME` (and `--base-url URL` for a server other than OpenAI);\n" +
	"- set the environment variables `HERMES_MODEL`, `OPENAI_BASE_URL` and `OPENAI_API_KEY`;\n" +
	"- in `$HERMES_HOME/config.yaml` (default `~/.hermes/config.yaml`) set `model.default`, `model.base_url` " +
	"and `model.api_key_env` (the name of the variable holding the key).\n\n" +
	"Any OpenAI-compatible server works, for example a local llama.cpp, vLLM or Ollama at " +
	"`http://localhost:8080/v1`. For a scripted, offline model use `--model script:FILE`."

// ErrorKind classifies an [Error].
type ErrorKind string

// The kinds of [Error].
const (
	// BadConfig: the configuration given to [New] is unusable (a bad base URL,
	// a script file that is missing or invalid).
	BadConfig ErrorKind = "config"
	// Auth: the server rejected the API key (HTTP 401 or 403).
	Auth ErrorKind = "auth"
	// ModelNotFound: the server does not know the requested model.
	ModelNotFound ErrorKind = "model_not_found"
	// EndpointNotFound: the server has no chat completions endpoint at the
	// base URL (HTTP 404 that is not about the model).
	EndpointNotFound ErrorKind = "endpoint_not_found"
	// Unreachable: the server could not be reached (connection refused,
	// DNS failure, no response headers in time) or the connection broke
	// during the reply.
	Unreachable ErrorKind = "unreachable"
	// Timeout: the reply did not finish within Config.Timeout.
	Timeout ErrorKind = "timeout"
	// RateLimited: the server answered 429 after every retry.
	RateLimited ErrorKind = "rate_limited"
	// Server: the server failed (HTTP 5xx after every retry, or an error
	// event inside the stream).
	Server ErrorKind = "server"
	// BadRequest: the server rejected the request (another HTTP 4xx).
	BadRequest ErrorKind = "bad_request"
	// ContextLength: the conversation is longer than the model's context.
	ContextLength ErrorKind = "context_length"
	// BadResponse: the server answered with something that is not a
	// Chat Completions stream.
	BadResponse ErrorKind = "bad_response"
	// ScriptExhausted: the conversation asked for more replies than the
	// script has.
	ScriptExhausted ErrorKind = "script_exhausted"
	// ScriptMismatch: the conversation does not match a reply's expect.
	ScriptMismatch ErrorKind = "script_mismatch"
)

// Error is a failure the user can act on. The agent shows Message to the
// user as an agent message; Err, when set, is the underlying cause for logs.
type Error struct {
	Kind ErrorKind
	// Message is written for the user: what went wrong and how to fix it.
	Message string
	// Status is the HTTP status that caused the error, or 0.
	Status int
	Err    error
}

// Error returns the user-facing message followed by the cause.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Message
	}
	return e.Message + " (" + e.Err.Error() + ")"
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// truncate shortens s to at most n runes, marking the cut with "…", and
// folds it onto one line.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
