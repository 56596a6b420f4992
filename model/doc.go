// Package model is the language-model layer of hermes-acp: it sends a
// conversation to a model and streams the reply back.
//
// A [Provider] is one model backend. [New] picks it from a [Config]:
//
//   - a model named "script:FILE" selects the deterministic script provider,
//     which replays the replies listed in a YAML file (see [LoadScript]) and
//     is meant for editor test harnesses and offline demos;
//   - an empty model returns [ErrNoModel], so the agent can still start and
//     answer prompts with [NoModelHelp];
//   - any other model selects the OpenAI-compatible provider, which speaks
//     Chat Completions with streaming to Config.BaseURL (OpenAI, vLLM,
//     llama.cpp, Ollama, DeepSeek, OpenRouter, LM Studio, …) through
//     github.com/openai/openai-go/v3.
//
// With Config.RecordPath set, every completed reply is also written to a
// script file, so a live session can be replayed offline with
// "script:FILE".
//
// Failures a user can act on (a rejected API key, an unknown model, an
// unreachable server, an exhausted script) are returned as [*Error], whose
// Message is written for the user and names the fix. Cancellation is
// returned as the context's error, wrapped.
//
// Providers are safe for concurrent use by several sessions. They keep no
// per-conversation state (the script position is derived from the request),
// so one value serves every session; only a recording provider remembers
// the one conversation it writes.
//
// Timeouts of the OpenAI-compatible provider, per HTTP attempt:
// [DefaultConnectTimeout] to dial, [DefaultFirstByteTimeout] until the
// response headers, and [DefaultTimeout] until the last chunk. HTTP 408, 429
// and 5xx are retried [DefaultMaxRetries] times, honouring Retry-After up to
// a minute, otherwise with exponential backoff from [DefaultRetryBaseDelay]
// with jitter; other failures are not retried.
package model
