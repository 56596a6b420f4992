package acp

import "context"

// hermes-acp's rewind extension (issue 29): an editor lists a session's
// checkpointed turns and restores the workspace to before one of them, so
// that it can put a "restore" button on a turn. Agents that serve it
// advertise agentCapabilities._meta.hermes.rewind = true.
const (
	// MethodRewindList lists the turns of a session that have a
	// checkpoint ([RewindListRequest] → [RewindListResponse]).
	MethodRewindList = "_hermes/rewind/list"
	// MethodRewindApply restores the files to their state before a turn,
	// or with dryRun only says what it would do ([RewindApplyRequest] →
	// [RewindApplyResponse]). A real restore asks the user first
	// (session/request_permission), as /rewind does.
	MethodRewindApply = "_hermes/rewind/apply"
)

// RewindAgent is implemented by an agent that serves the rewind
// extension; [AgentConn] routes the two methods to it.
type RewindAgent interface {
	RewindList(ctx context.Context, req *RewindListRequest) (*RewindListResponse, error)
	RewindApply(ctx context.Context, req *RewindApplyRequest) (*RewindApplyResponse, error)
}

// RewindListRequest are the params of [MethodRewindList].
type RewindListRequest struct {
	SessionID string `json:"sessionId"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// RewindListResponse lists the checkpointed turns, oldest first.
type RewindListResponse struct {
	Turns []RewindTurn `json:"turns"`
	Meta  Meta         `json:"_meta,omitempty"`
}

// RewindTurn is one checkpointed turn and the files it changed.
type RewindTurn struct {
	// Turn is the number /rewind N and [RewindApplyRequest] take.
	Turn int `json:"turn"`
	// At is when the checkpoint was taken (RFC 3339).
	At string `json:"at"`
	// Prompt is the first line of the turn's prompt.
	Prompt string `json:"prompt"`
	// Files are the files the turn changed (never null).
	Files []RewindFile `json:"files"`
}

// RewindFile is one file of a turn or of a restore.
type RewindFile struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Change is, in a turn, what the turn did: "added", "modified" or
	// "deleted"; in a restore, what the restore does: "restore" (write the
	// recorded content back), "remove" (the file did not exist) or
	// "recreate" (the file was deleted since).
	Change string `json:"change"`
	// Added and Removed count lines (0 for a binary file).
	Added   int  `json:"added"`
	Removed int  `json:"removed"`
	Binary  bool `json:"binary,omitempty"`
	// Conflict, in a restore, says why the file is left alone unless the
	// user confirms (they changed it after the turn); "" when none.
	Conflict string `json:"conflict,omitempty"`
	// Sensitive marks a file edits of which always ask (.git, .env*, …).
	Sensitive bool `json:"sensitive,omitempty"`
}

// RewindApplyRequest are the params of [MethodRewindApply].
type RewindApplyRequest struct {
	SessionID string `json:"sessionId"`
	// Turn is the turn to go back to before.
	Turn int `json:"turn"`
	// DryRun only reports the files and line counts; nothing is asked or
	// written.
	DryRun bool `json:"dryRun,omitempty"`
	Meta   Meta `json:"_meta,omitempty"`
}

// RewindApplyResponse says what the restore did (or, for a dry run, would
// do).
type RewindApplyResponse struct {
	// Outcome is "dry_run", "restored", "declined" (the user said no) or
	// "nothing" (the files are already as they were).
	Outcome string `json:"outcome"`
	// Files are the files concerned (never null); in a restore, the
	// conflicts the user did not confirm are left alone.
	Files []RewindFile `json:"files"`
	// Failed lists the files that could not be written, with why.
	Failed []string `json:"failed,omitempty"`
	// ConversationDropped: the conversation after the turn was dropped too.
	ConversationDropped bool `json:"conversationDropped,omitempty"`
	Meta                Meta `json:"_meta,omitempty"`
}
