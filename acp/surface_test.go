package acp_test

import (
	"encoding/json"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// TestNoticeAndToolNameWire: a notice update and a tool call's name encode
// as the schema spells them and decode back; a notice without a title is
// refused; session.notices and sessionCapabilities.fork are read and
// written as markers.
func TestNoticeAndToolNameWire(t *testing.T) {
	t.Parallel()
	desc := "the details"
	for _, tc := range []struct {
		u    acp.SessionUpdate
		want string
	}{
		{acp.SessionUpdate{Notice: &acp.Notice{Severity: acp.NoticeWarning, Title: "T", Description: &desc}},
			`{"sessionUpdate":"notice","severity":"warning","title":"T","description":"the details"}`},
		{acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Title: "Read a.txt", Name: "read_file"}},
			`{"sessionUpdate":"tool_call","toolCallId":"c","title":"Read a.txt","name":"read_file"}`},
	} {
		b, err := json.Marshal(tc.u)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%s) = %s, %v; want %s", tc.u.Kind(), b, err, tc.want)
			continue
		}
		var back acp.SessionUpdate
		if err := json.Unmarshal(b, &back); err != nil || back.Kind() != tc.u.Kind() {
			t.Errorf("Unmarshal(%s) = %s, %v", b, back.Kind(), err)
		}
		if again, _ := json.Marshal(back); string(again) != tc.want {
			t.Errorf("round trip of %s = %s", tc.want, again)
		}
	}
	var u acp.SessionUpdate
	if err := json.Unmarshal([]byte(`{"sessionUpdate":"notice","severity":"info"}`), &u); err == nil {
		t.Errorf("a notice without a title decoded: %+v", u.Notice)
	}

	var caps acp.ClientCapabilities
	if err := json.Unmarshal([]byte(`{"session":{"notices":{}}}`), &caps); err != nil || caps.Session == nil || caps.Session.Notices == nil {
		t.Errorf("session.notices: {} decoded as %+v, %v", caps.Session, err)
	}
	if err := json.Unmarshal([]byte(`{"session":{"notices":null}}`), &caps); err != nil || caps.Session == nil || caps.Session.Notices != nil {
		t.Errorf("session.notices: null decoded as %+v, %v", caps.Session, err)
	}
	b, _ := json.Marshal(acp.SessionCapabilities{Fork: &acp.Marker{}})
	if string(b) != `{"fork":{}}` {
		t.Errorf("sessionCapabilities with fork = %s", b)
	}
}
