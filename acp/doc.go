// Package acp implements the wire side of the Agent Client Protocol (ACP v1):
// the message types, a newline-delimited JSON object stream for
// github.com/sourcegraph/jsonrpc2, an ordered dispatcher that routes requests
// to an [Agent], the mapping of Go errors to JSON-RPC errors, and a typed
// proxy ([Client]) for the methods an agent calls on the editor.
//
// The package knows nothing of tools, models or workspaces. It is the only
// package that writes to the protocol stream.
//
// Ordering rules (see the package's Conn documentation):
//   - messages are handled one at a time in arrival order, except that a
//     handler may call [Release] to let the next message start;
//   - session/cancel and $/cancel_request are handled at once, on the read
//     goroutine, and never wait for the queue;
//   - the cancel function of every request is registered before its handler
//     starts, so a cancel can never be lost;
//   - functions passed to [AfterReply] run after the reply has been written
//     and before the next message is handled.
package acp
