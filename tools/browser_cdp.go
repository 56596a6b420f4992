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
	"github.com/hermes-acp/hermes-acp/workspace"
)

// browser_cdp sends a raw Chrome DevTools Protocol command to the session's
// browser. Methods that can reach outside the page (cdpApproval) and the
// file methods (cdpfiles.go) are asked for first; URLs it would
// load go through the browser's URL rules, files through the file tools'.
var _ = declare(registry.Tool[browserCDPDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:        "browser_cdp",
		Toolset:     browserToolset,
		Emoji:       "🧪",
		Description: browserCDPDescription,
		Kind:        registry.KindExecute,
		Title: func(args map[string]any) string {
			if m, ok := args["method"].(string); ok && m != "" {
				return "cdp: " + m
			}
			return "browser_cdp"
		},
		Preview: browserPreview,
		Render:  browserRender,
	}, Params: browserCDPParams{}},
	New: func(d browserCDPDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *browserCDPParams) (registry.Result, error) {
			return browserCDP(ctx, d, call, p)
		})
	},
	SharedCheck: browserCDPDeps.BrowserCheck,
})

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

type browserCDPParams struct {
	Method   string          `json:"method" schema:"required" desc:"CDP method name, e.g. 'Target.getTargets', 'Runtime.evaluate', 'Page.handleJavaScriptDialog'."`
	Params   json.RawMessage `json:"params" schema:"type=object,additionalProperties=true,properties={}" desc:"Method-specific parameters as a JSON object. Omit or pass {} for methods that take no parameters."`
	TargetID string          `json:"target_id" desc:"Optional. Target/tab ID from Target.getTargets result (each entry's 'targetId'). Omit to use the session's tab. Mutually exclusive with frame_id."`
	FrameID  string          `json:"frame_id" desc:"Optional. Frame id (from Page.getFrameTree) to run the method in: Runtime.evaluate runs in that frame."`
	Timeout  *float64        `json:"timeout" schema:"default=30" desc:"Timeout in seconds (default 30, max 300)."`
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

func browserCDP(ctx context.Context, s browserCDPDeps, call *registry.Call, p *browserCDPParams) (registry.Result, error) {
	method := strings.TrimSpace(p.Method)
	if method == "" {
		return registry.Failed(cdpFail{Error: "'method' is required (e.g. 'Target.getTargets')", CDPDocs: cdpDocsURL}), nil
	}
	obj := map[string]any{}
	if len(p.Params) > 0 && string(p.Params) != "null" {
		if err := json.Unmarshal(p.Params, &obj); err != nil || obj == nil {
			return registry.Failed(cdpFail{Error: "'params' must be an object", Method: method}), nil
		}
	}
	b := s.Browser()
	if b == nil {
		return noBrowser(), nil
	}
	timeout := 30 * time.Second
	if p.Timeout != nil && *p.Timeout > 0 {
		timeout = time.Duration(min(max(*p.Timeout, 1), 300) * float64(time.Second))
	}
	cc := browser.CDPCall{Method: method, Params: p.Params, TargetID: p.TargetID, FrameID: p.FrameID, Timeout: timeout}
	// What the call would load or hand over is checked before anything is
	// asked: a refusal is never offered to the user.
	if err := b.CheckCDP(ctx, cc); err != nil {
		return registry.Failed(cdpFail{Error: browserMessage(s, err, ""), Method: method}), nil
	}
	detail, problem := cdpFiles(s.Workspace(), method, obj, b)
	if problem != "" {
		return registry.Failed(cdpFail{Error: "BLOCKED: " + problem, Method: method}), nil
	}
	if detail != nil {
		cc.Params = encodeParams(obj)
	}
	if cdpApproval(method) || slices.Contains(cdpFileMethods, method) {
		if !s.ApproveCDP(ctx, call.ID, method, strings.Join(detail, "\n")) {
			return registry.Failed(cdpFail{Error: fmt.Sprintf("BLOCKED: %s can reach outside the page and was not approved.", method), Method: method}), nil
		}
	}
	res, err := b.CDP(ctx, cc)
	if err != nil {
		return registry.Failed(cdpFail{Error: browserMessage(s, err, ""), Method: method}), nil
	}
	return registry.OK(browserCDPResult{Success: true, Method: method, Result: res, TargetID: p.TargetID, FrameID: p.FrameID}), nil
}

// browserCDPDeps is what browser_cdp uses of its session besides the
// browser: the workspace (the files a call would hand the page, where
// downloads would land) and the user's approval of the methods that reach
// outside the page.
type browserCDPDeps interface {
	browserDeps
	Workspace() *workspace.Workspace
	// ApproveCDP asks whether method may be sent on tool call callID;
	// detail says what it would do. False without an approver.
	ApproveCDP(ctx context.Context, callID, method, detail string) bool
}
