package config

import (
	"testing"
	"time"
)

// TestSmartApprovalsConfig: approvals.mode: smart with smart_policy and
// auxiliary.approval; without an auxiliary model the session's reviews.
func TestSmartApprovalsConfig(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": "model:\n  default: m\n  base_url: http://main/v1\napprovals:\n  mode: smart\n  smart_policy: |\n    ESCALATE anything under /etc.\n" +
		"auxiliary:\n  approval:\n    model: guard-mini\n    timeout: 9\n"})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.FileErr != nil {
		t.Fatal(c.FileErr)
	}
	if !c.ApprovalsSmart || c.ApprovalsOff || c.SmartPolicy != "ESCALATE anything under /etc." {
		t.Errorf("smart %v off %v policy %q", c.ApprovalsSmart, c.ApprovalsOff, c.SmartPolicy)
	}
	if a := c.AuxApproval; a == nil || a.Model != "guard-mini" || a.BaseURL != "http://main/v1" || a.Timeout != 9*time.Second {
		t.Errorf("auxiliary.approval = %+v, want guard-mini on the main endpoint, 9 s", a)
	}
	plain := writeHome(t, map[string]string{"config.yaml": "approvals:\n  mode: smart\n"})
	if c := Load(envMap(map[string]string{"HERMES_HOME": plain}), "", ""); !c.ApprovalsSmart || c.AuxApproval != nil {
		t.Errorf("smart without auxiliary.approval: smart %v aux %+v", c.ApprovalsSmart, c.AuxApproval)
	}
	manual := writeHome(t, map[string]string{"config.yaml": "approvals:\n  mode: manual\nauxiliary:\n  approval:\n    model: guard-mini\n"})
	if c := Load(envMap(map[string]string{"HERMES_HOME": manual}), "", ""); c.ApprovalsSmart || c.AuxApproval != nil {
		t.Errorf("manual mode: smart %v aux %+v", c.ApprovalsSmart, c.AuxApproval)
	}
}
