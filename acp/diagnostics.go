package acp

import "strings"

// MethodPublishDiagnostics is hermes-acp's extension notification that
// replaces the whole diagnostic set of one file (DESIGN.md "Diagnostics (our
// extension)"); agents that send it advertise
// agentCapabilities._meta.hermes.diagnostics = true, and send it only to
// clients that ask for it ([WantsHermesExtension]).
const MethodPublishDiagnostics = "_hermes/publishDiagnostics"

// HermesPrefix starts the names of hermes-acp's extension methods.
const HermesPrefix = "_hermes/"

// WantsHermesExtension reports whether the client asked for hermes-acp's
// extension notifications (_hermes/*, diagnostics first among them) by
// advertising clientCapabilities._meta.hermes.diagnostics = true. A client
// that does not know them is never sent them: the official SDKs log every
// notification they have no handler for.
func WantsHermesExtension(c ClientCapabilities) bool {
	h, _ := c.Meta["hermes"].(map[string]any)
	return h["diagnostics"] == true
}

// isHermesMethod reports whether method is one of our extension methods.
func isHermesMethod(method string) bool { return strings.HasPrefix(method, HermesPrefix) }

// PublishDiagnosticsParams are the params of [MethodPublishDiagnostics].
// An empty Diagnostics list clears the file's set.
type PublishDiagnosticsParams struct {
	SessionID string `json:"sessionId"`
	// URI is the file's file:// URI.
	URI string `json:"uri"`
	// Version counts the publications for URI in the session, from 1.
	Version *int `json:"version,omitempty"`
	// Diagnostics is the file's full set; never nil on the wire ([]).
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Diagnostic is exactly LSP's Diagnostic on the wire: 0-based lines and
// UTF-16 characters, Severity 1 (error) to 4 (hint).
type Diagnostic struct {
	Range              DiagnosticRange                `json:"range"`
	Severity           int                            `json:"severity,omitempty"`
	Code               any                            `json:"code,omitempty"` // int32 or string
	CodeDescription    *DiagnosticCodeDescription     `json:"codeDescription,omitempty"`
	Source             string                         `json:"source,omitempty"`
	Message            string                         `json:"message"`
	Tags               []int                          `json:"tags,omitempty"`
	RelatedInformation []DiagnosticRelatedInformation `json:"relatedInformation,omitempty"`
	Data               any                            `json:"data,omitempty"`
}

// DiagnosticRange is LSP's Range: End is exclusive.
type DiagnosticRange struct {
	Start DiagnosticPosition `json:"start"`
	End   DiagnosticPosition `json:"end"`
}

// DiagnosticPosition is LSP's Position: a 0-based line and a 0-based
// offset in UTF-16 code units.
type DiagnosticPosition struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// DiagnosticCodeDescription is LSP's CodeDescription.
type DiagnosticCodeDescription struct {
	Href string `json:"href"`
}

// DiagnosticRelatedInformation is LSP's DiagnosticRelatedInformation.
type DiagnosticRelatedInformation struct {
	Location DiagnosticLocation `json:"location"`
	Message  string             `json:"message"`
}

// DiagnosticLocation is LSP's Location.
type DiagnosticLocation struct {
	URI   string          `json:"uri"`
	Range DiagnosticRange `json:"range"`
}
