package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/registry"
)

// browser_cdp sends a raw Chrome DevTools Protocol command to the session's
// browser. Methods that can reach outside the page (cdpApproval) are
// asked for first; URLs it would load go through the URL rules.
var _ = register(registry.Entry{
	Name:        "browser_cdp",
	Toolset:     browserToolset,
	Emoji:       "🧪",
	Description: browserCDPDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"method": map[string]any{"type": "string", "description": "CDP method name, e.g. 'Target.getTargets', 'Runtime.evaluate', 'Page.handleJavaScriptDialog'."},
			"params": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": true,
				"description": "Method-specific parameters as a JSON object. Omit or pass {} for methods that take no parameters."},
			"target_id": map[string]any{"type": "string", "description": "Optional. Target/tab ID from Target.getTargets result (each entry's 'targetId'). Omit to use the session's tab. Mutually exclusive with frame_id."},
			"frame_id":  map[string]any{"type": "string", "description": "Optional. Frame id (from Page.getFrameTree) to run the method in: Runtime.evaluate runs in that frame."},
			"timeout":   map[string]any{"type": "number", "default": 30, "description": "Timeout in seconds (default 30, max 300)."},
		},
		"required": []any{"method"},
	},
	Check: browserCheck,
	Kind:  registry.KindExecute,
	Title: func(args map[string]any) string {
		if m, ok := args["method"].(string); ok && m != "" {
			return "cdp: " + m
		}
		return "browser_cdp"
	},
	Preview: browserPreview,
	Render:  browserRender,
}, handle(browserCDP))

//go:embed browser_cdp.md
var browserCDPDescription string

// cdpDocsURL is the protocol's reference.
const cdpDocsURL = "https://chromedevtools.github.io/devtools-protocol/"

// cdpApprovalDomains are the domains whose every method reaches outside
// the page: the browser, other targets, storage of every origin, the
// machine, files, and the request interception the URL rules rely on.
var cdpApprovalDomains = []string{"Browser.", "Target.", "Storage.", "SystemInfo.", "IO.", "Fetch.", "Tethering.",
	"ServiceWorker.", "BackgroundService.", "Extensions.", "PWA.", "FileSystem.", "Cast."}

// cdpApprovalFree are the methods of those domains that only look.
var cdpApprovalFree = []string{"Target.getTargets", "Target.getTargetInfo", "Browser.getVersion"}

// cdpApprovalMethods are single methods that reach outside the page.
var cdpApprovalMethods = []string{
	"Network.setCookie", "Network.setCookies", "Network.deleteCookies", "Network.clearBrowserCookies",
	"Network.getAllCookies", "Network.clearBrowserCache", "Network.setRequestInterception",
	"Network.loadNetworkResource", "Page.setDownloadBehavior", "Security.setIgnoreCertificateErrors",
	"Page.close", "Page.crash",
}

// cdpApproval reports whether method needs the user's approval.
func cdpApproval(method string) bool {
	if slices.Contains(cdpApprovalFree, method) {
		return false
	}
	if slices.Contains(cdpApprovalMethods, method) {
		return true
	}
	for _, d := range cdpApprovalDomains {
		if strings.HasPrefix(method, d) {
			return true
		}
	}
	return false
}

// cdpURLParams are the methods that load a URL, and the parameter holding
// it: the URL rules check it first.
var cdpURLParams = map[string]string{"Page.navigate": "url", "Target.createTarget": "url"}

type browserCDPParams struct {
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params"`
	TargetID string          `json:"target_id"`
	FrameID  string          `json:"frame_id"`
	Timeout  *float64        `json:"timeout"`
}

type browserCDPResult struct {
	Success  bool            `json:"success"`
	Method   string          `json:"method"`
	Result   json.RawMessage `json:"result"`
	TargetID string          `json:"target_id,omitempty"`
	FrameID  string          `json:"frame_id,omitempty"`
}

type cdpFail struct {
	Error   string `json:"error"`
	Method  string `json:"method,omitempty"`
	CDPDocs string `json:"cdp_docs,omitempty"`
}

func browserCDP(ctx context.Context, s *session, call *registry.Call, p *browserCDPParams) (registry.Result, error) {
	method := strings.TrimSpace(p.Method)
	if method == "" {
		return registry.Failed(cdpFail{Error: "'method' is required (e.g. 'Target.getTargets')", CDPDocs: cdpDocsURL}), nil
	}
	if len(p.Params) > 0 && string(p.Params) != "null" {
		var obj map[string]any
		if err := json.Unmarshal(p.Params, &obj); err != nil {
			return registry.Failed(cdpFail{Error: "'params' must be an object", Method: method}), nil
		}
		if key, ok := cdpURLParams[method]; ok && s.BrowserURL != nil {
			if u, _ := obj[key].(string); u != "" {
				if err := s.BrowserURL(ctx, u); err != nil {
					return registry.Failed(cdpFail{Error: fmt.Sprintf("Blocked: %s: %v", u, err), Method: method}), nil
				}
			}
		}
	}
	if cdpApproval(method) {
		if s.ApproveCDP == nil || !s.ApproveCDP(ctx, call.ID, method) {
			return registry.Failed(cdpFail{Error: fmt.Sprintf("BLOCKED: %s can reach outside the page and was not approved.", method), Method: method}), nil
		}
	}
	b := s.browser()
	if b == nil {
		return noBrowser(), nil
	}
	timeout := 30 * time.Second
	if p.Timeout != nil && *p.Timeout > 0 {
		timeout = time.Duration(min(max(*p.Timeout, 1), 300) * float64(time.Second))
	}
	res, err := b.CDP(ctx, browser.CDPCall{Method: method, Params: p.Params, TargetID: p.TargetID, FrameID: p.FrameID, Timeout: timeout})
	if err != nil {
		return registry.Failed(cdpFail{Error: s.browserMessage(err, ""), Method: method}), nil
	}
	return registry.OK(browserCDPResult{Success: true, Method: method, Result: res, TargetID: p.TargetID, FrameID: p.FrameID}), nil
}
