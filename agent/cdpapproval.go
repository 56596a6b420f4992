package agent

import (
	"context"

	"github.com/hermes-acp/hermes-acp/acp"
)

// ApproveCDP asks the user, with session/request_permission on tool call
// callID, whether the raw DevTools method may run: the browser tools ask
// before a method that can reach outside the page (other sites' cookies,
// storage, targets, the browser itself, files of the machine). detail,
// when not empty, is shown as the request's content: what the call would
// do (the files the page would get, where downloads would land).
// approvals.mode off allows it; a timeout (approvals.timeout), a cancelled
// turn or a failed request deny.
func (e *Env) ApproveCDP(ctx context.Context, callID, method, detail string) bool {
	s := e.s
	if s.a.opts.ApprovalsOff {
		return true
	}
	title := "Allow the DevTools method " + method + "? It can reach outside the page."
	upd := acp.ToolCallUpdate{ToolCallID: callID, Title: &title, Kind: acp.KindExecute, Status: acp.StatusPending}
	if detail != "" {
		upd.Content = []acp.ToolCallContent{acp.TextContentItem(detail)}
	}
	pctx, cancel, _ := s.approvalContext(ctx)
	defer cancel()
	res, err := s.client.RequestPermission(pctx, &acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  upd,
		Options: []acp.PermissionOption{
			{OptionID: "allow", Name: "Allow once", Kind: acp.AllowOnce},
			{OptionID: "reject", Name: "Reject", Kind: acp.RejectOnce},
		},
	})
	if err != nil {
		if ctx.Err() == nil {
			s.a.log.Warn("permission request failed", "session", s.id, "error", err)
		}
		return false
	}
	return !res.Outcome.Cancelled && res.Outcome.OptionID == "allow"
}
