// Package modeltest is a fake OpenAI-compatible model server for tests and
// benchmarks.
//
// A [Server] speaks Chat Completions with SSE streaming on a loopback
// address. It answers each request with the next [Turn] of its script (or
// with the turn an [Options.Respond] function picks from the request):
// text chunks, reasoning chunks (as the non-standard reasoning_content
// field), tool calls streamed in argument pieces with the id and name in
// the first delta only, a finish reason and usage — or an HTTP error, a
// slow stream, or a stream held open until the client goes away. It records
// every request body, so tests can assert what the agent sent.
//
// Tests use [NewServer], which closes the server when the test ends;
// programs such as benchmarks use [Start] or [StartOptions] and call
// [Server.Close]. Point the code under test at [Server.URL] (the base URL,
// ending in /v1), for example through OPENAI_BASE_URL.
//
// The package depends on the standard library only, so anything may
// import it.
package modeltest
