package agent

import "fmt"

// Errors of the editor's own requests (fs/*, terminal/*,
// session/request_permission) reach the model and the chat with the
// editor's reason: acp.Error's text carries its message, code and data, and
// the paths that turn a failed request into a tool result keep that text
// (editorError for fs/*, RunInTerminal's errors for terminal/*, the
// denials below for permission requests).

// permissionFailed is what a denial adds when the editor answered the
// permission request with an error: the editor's reason, whole.
func permissionFailed(err error) string {
	return fmt.Sprintf(" (The editor's permission request failed: %v.)", err)
}
