// Package schematest checks, in tests, that every message an agent sends is
// valid ACP v1: requests and notifications against the schema type named by
// their method, responses against the result type of the request they answer.
// A method the stable schema lacks (session/fork) is checked against the
// unstable schema the same SDK bundles.
package schematest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hermes-acp/hermes-acp/acp"
)

//go:embed schema/acp-v1.json
var acpSchema []byte

//go:embed schema/acp-v1-unstable.json
var acpUnstableSchema []byte

//go:embed schema/hermes-diagnostics.json
var diagSchema []byte

//go:embed schema/hermes-rewind.json
var rewindSchema []byte

const (
	acpURL = "https://agentclientprotocol.com/schema/v1.json"
	// acpUnstableURL is the unstable schema: the stable one plus the
	// methods not yet stabilised.
	acpUnstableURL = "https://agentclientprotocol.com/schema/v1.unstable.json"
	diagURL        = "https://hermes-acp.dev/schema/publish-diagnostics.json"
	// rewindURL: our rewind extension's results (issue 29).
	rewindURL = "https://hermes-acp.dev/schema/rewind.json"
)

// Checker validates the lines of one connection. It is safe for concurrent
// use.
type Checker struct {
	compiler *jsonschema.Compiler
	defs     map[string]map[string]any // $defs by name
	unstable map[string]map[string]any // the unstable schema's $defs by name

	mu      sync.Mutex        // guards the fields below
	pending map[string]string // "c:<id>" / "a:<id>" → method of an unanswered request
	schemas map[string]*jsonschema.Schema
	errs    []error
	seen    int
}

// New compiles the schemas.
func New() (*Checker, error) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(acpSchema))
	if err != nil {
		return nil, fmt.Errorf("parse acp schema: %w", err)
	}
	if err := c.AddResource(acpURL, doc); err != nil {
		return nil, err
	}
	ddoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(diagSchema))
	if err != nil {
		return nil, fmt.Errorf("parse diagnostics schema: %w", err)
	}
	if err := c.AddResource(diagURL, ddoc); err != nil {
		return nil, err
	}
	udoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(acpUnstableSchema))
	if err != nil {
		return nil, fmt.Errorf("parse unstable acp schema: %w", err)
	}
	if err := c.AddResource(acpUnstableURL, udoc); err != nil {
		return nil, err
	}
	rdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rewindSchema))
	if err != nil {
		return nil, fmt.Errorf("parse rewind schema: %w", err)
	}
	if err := c.AddResource(rewindURL, rdoc); err != nil {
		return nil, err
	}
	var raw, uraw struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(acpSchema, &raw); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(acpUnstableSchema, &uraw); err != nil {
		return nil, err
	}
	return &Checker{compiler: c, defs: raw.Defs, unstable: uraw.Defs, pending: map[string]string{}, schemas: map[string]*jsonschema.Schema{}}, nil
}

// defFor returns the schema location ("URL#/$defs/Name") of the type for
// method with the given x-side and suffix ("Request", "Response" or
// "Notification"): the stable schema's, else the unstable one's; "" when
// neither has it.
func (c *Checker) defFor(method, xside, suffix string) string {
	for _, schema := range []struct {
		url  string
		defs map[string]map[string]any
	}{{acpURL, c.defs}, {acpUnstableURL, c.unstable}} {
		for name, d := range schema.defs {
			if d["x-method"] == method && d["x-side"] == xside && strings.HasSuffix(name, suffix) {
				return schema.url + "#/$defs/" + name
			}
		}
	}
	return ""
}

func (c *Checker) schema(loc string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	s := c.schemas[loc]
	c.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := c.compiler.Compile(loc)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.schemas[loc] = s
	c.mu.Unlock()
	return s, nil
}

func (c *Checker) validate(loc string, v json.RawMessage) error {
	s, err := c.schema(loc)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // "null" for error responses without a usable id
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Line checks one line. Lines the agent sent are validated; lines the client
// sent are only recorded so responses can be matched to their method.
func (c *Checker) Line(fromAgent bool, line []byte) {
	if err := c.line(fromAgent, line); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, fmt.Errorf("%w\n  message: %s", err, truncate(line, 600)))
		c.mu.Unlock()
	}
}

func (c *Checker) line(fromAgent bool, line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		if fromAgent {
			return fmt.Errorf("agent sent invalid JSON: %v", err)
		}
		return nil
	}
	if !fromAgent {
		if e.Method != nil && len(e.ID) > 0 && string(e.ID) != "null" {
			c.mu.Lock()
			c.pending["c:"+string(e.ID)] = *e.Method
			c.mu.Unlock()
		}
		return nil
	}
	c.mu.Lock()
	c.seen++
	c.mu.Unlock()
	if e.JSONRPC != "2.0" {
		return fmt.Errorf(`agent message lacks "jsonrpc":"2.0"`)
	}
	if bytes.Contains(line, []byte("\n")) {
		return fmt.Errorf("agent message contains a raw newline")
	}
	switch {
	case e.Method != nil && len(e.ID) > 0: // agent → client request
		if string(e.ID) == "null" {
			return fmt.Errorf("agent sent a request with a null id")
		}
		c.mu.Lock()
		c.pending["a:"+string(e.ID)] = *e.Method
		c.mu.Unlock()
		def := c.defFor(*e.Method, "client", "Request")
		if def == "" {
			return fmt.Errorf("agent sent request for unknown client method %q", *e.Method)
		}
		return c.checkAt(def, e.Params)
	case e.Method != nil: // notification
		switch m := *e.Method; {
		case m == "session/update":
			return c.check("SessionNotification", e.Params)
		case m == "$/cancel_request":
			return c.check("CancelRequestNotification", e.Params)
		case m == acp.MethodPublishDiagnostics:
			if err := c.validate(diagURL, e.Params); err != nil {
				return fmt.Errorf("%s params: %v", acp.MethodPublishDiagnostics, err)
			}
			return nil
		default:
			return fmt.Errorf("agent sent unknown notification %q", m)
		}
	case len(e.ID) > 0: // response
		c.mu.Lock()
		key := "c:" + string(e.ID)
		method, ok := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if len(e.Error) > 0 {
			return c.check("Error", e.Error)
		}
		if !ok {
			if string(e.ID) == "null" {
				return fmt.Errorf("agent sent a result with a null id")
			}
			return fmt.Errorf("agent answered unknown request id %s", e.ID)
		}
		if ext := map[string]string{acp.MethodRewindList: "ListResponse", acp.MethodRewindApply: "ApplyResponse"}[method]; ext != "" {
			if err := c.validate(rewindURL+"#/$defs/"+ext, e.Result); err != nil {
				return fmt.Errorf("%s result: %v", method, err)
			}
			return nil
		}
		def := c.defFor(method, "agent", "Response")
		if def == "" {
			return fmt.Errorf("agent answered %q, which has no response type", method)
		}
		if len(e.Result) == 0 {
			return fmt.Errorf("response to %s has neither result nor error", method)
		}
		return c.checkAt(def, e.Result)
	}
	return fmt.Errorf("agent sent a message that is neither request, notification nor response")
}

// check validates v against the stable schema's type def.
func (c *Checker) check(def string, v json.RawMessage) error {
	return c.checkAt(acpURL+"#/$defs/"+def, v)
}

// checkAt validates v against the type at loc (defFor's result).
func (c *Checker) checkAt(loc string, v json.RawMessage) error {
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	if err := c.validate(loc, v); err != nil {
		_, def, _ := strings.Cut(loc, "#/$defs/")
		return fmt.Errorf("%s: %v", def, err)
	}
	return nil
}

// Errors returns every violation seen so far.
func (c *Checker) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// Seen returns how many agent messages were checked.
func (c *Checker) Seen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

// TB is the part of testing.TB the checker reports to.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Attach returns a checker whose violations fail t when the test ends.
func Attach(t TB) *Checker {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Errorf("schematest: %v", err)
		return nil
	}
	t.Cleanup(func() {
		for _, err := range c.Errors() {
			t.Errorf("ACP schema violation: %v", err)
		}
	})
	return c
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
