package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
)

// DefaultMaxResultChars is the per-result size, in characters, above which a
// tool result is persisted to a file (hermes DEFAULT_RESULT_SIZE_CHARS).
const DefaultMaxResultChars = 100_000

// DefaultMCPResultChars is hermes's tighter per-result threshold for MCP
// tools. The code that registers MCP tools sets it as Entry.MaxResultChars.
const DefaultMCPResultChars = 50_000

// Unlimited, as Entry.MaxResultChars, means the tool's results are never
// persisted by the per-result budget (hermes pins read_file this way to avoid
// persist → read → persist loops). The per-turn budget still applies.
const Unlimited = -1

// maxNameLen is the longest tool name OpenAI-compatible APIs accept.
const maxNameLen = 64

// Kind is the kind of a tool as the editor shows it: the values of ACP's
// ToolKind.
type Kind string

// The ACP tool kinds.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	// KindSwitchMode is a call that changes the session's mode (the exit
	// from plan mode).
	KindSwitchMode Kind = "switch_mode"
	KindOther      Kind = "other"
)

// Entry describes one tool: every fact the registry, the pipeline and the
// agent need about it lives here, so adding a tool never touches a central
// list. A registered Entry is copied; the registry never mutates it and
// callers must not mutate the Schema maps it hands back.
type Entry struct {
	Name, Toolset, Description, Emoji string
	// Schema is the JSON Schema of the arguments object
	// ({"type":"object","properties":…,"required":…}). Nil means no
	// arguments. Register stores a normalised copy (any JSON-encodable Go
	// values are accepted), and registering the same map again under the
	// same name reuses that copy: a schema map must not change once
	// registered.
	Schema map[string]any
	// Handler runs the tool. Nil declares a tool that each session binds to
	// its own dependencies (see [Registry.Clone]); calling it unbound gives
	// an error result.
	Handler Handler
	// Check reports whether the tool can run now: nil means always
	// available; an error (or a panic) makes the tool unavailable with that
	// reason. Entries that share one *Check share one run per pass.
	Check *Check
	// RequiresEnv lists environment variables that must be non-empty for the
	// tool to be available; the unavailability reason names the missing ones.
	RequiresEnv []string
	// MaxResultChars is the per-result persistence threshold in characters:
	// 0 means DefaultMaxResultChars, Unlimited means never persisted, by the
	// per-result budget nor by the per-turn budget (read_file: saving a read
	// of a saved result would loop). Values above the pipeline's default are
	// capped at it.
	MaxResultChars int

	// Kind is how the editor shows the tool; "" means KindOther.
	Kind Kind
	// ReadOnly tools change nothing outside the session. Plan mode runs
	// only read-only calls (see CommandArg).
	ReadOnly bool
	// CommandArg names the argument that is a shell command the tool runs
	// (terminal's command): a call of such a tool is read-only when the
	// danger check classifies its command read-only, and plan mode runs
	// it then.
	CommandArg string
	// Idempotent tools return the same result for the same arguments until
	// something else changes: repeating one with an identical result counts
	// as no progress for the guardrails.
	Idempotent bool
	// ParallelSafe tools may run concurrently with the other parallel-safe
	// calls of a batch.
	ParallelSafe bool
	// PathArg names the argument that is the file the call touches. The
	// batch planner lets such a call run concurrently with others only when
	// the paths, resolved by the session, do not overlap; a call without a
	// usable path runs alone. The editor follows the path.
	PathArg string
	// LineArgs name the arguments, in order of preference, whose value is
	// the 1-based line of PathArg the editor should show.
	LineArgs []string
	// ReadsSavedResults marks the tool that reads back a result the budget
	// saved to a file; the budget's note names it. Without one enabled, the
	// budget truncates results inline instead of saving them.
	ReadsSavedResults bool
	// ChangesFiles tools may change the workspace's files (writing them,
	// running commands): the agent checkpoints the workspace before the
	// first call of a turn to one of them (issue 29).
	ChangesFiles bool

	// Title is the editor's title of a call ("read: main.go"); nil or ""
	// means the tool's name.
	Title func(args map[string]any) string
	// Preview is what the editor shows while the call runs; nil shows the
	// arguments. It returns "" to show nothing.
	Preview func(args map[string]any) string
	// Render is what the editor shows when the call has ended (Markdown);
	// nil renders the result generically. A failed result is rendered by
	// the agent before Render is asked.
	Render func(args map[string]any, r Result) string

	// srcSchema is the map Schema was copied from at registration, so that
	// registering the same map again reuses the copy.
	srcSchema map[string]any
	// schemaJSON is Schema encoded, once, on first use; it is shared by
	// every registration that reuses the copy (each session binding a
	// declared tool), so the schemas are encoded once per process.
	schemaJSON *encodedSchema
}

// encodedSchema is a registered schema encoded as JSON once, on first use.
type encodedSchema struct {
	once sync.Once
	raw  json.RawMessage // nil when the schema could not be encoded
}

// get returns the JSON of schema, encoding it the first time.
func (c *encodedSchema) get(schema map[string]any) json.RawMessage {
	if c == nil {
		return nil
	}
	c.once.Do(func() {
		if raw, err := json.Marshal(schema); err == nil {
			c.raw = raw
		}
	})
	return c.raw
}

// sameMap reports whether a and b are one map (not merely equal ones):
// pointer identity, for two maps the caller holds. A schema map must not
// change once it has been registered.
func sameMap(a, b map[string]any) bool {
	return a != nil && b != nil && reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

// NoRender, returned by an Entry's Render, shows nothing when the call has
// ended (hermes's web tools: the title says what ran; only failures show).
const NoRender = "\x00"

// Handler runs one tool call and returns its result. A returned error
// becomes {"error":"Tool execution failed: <Type>: <message>"}: return an
// error [Result] for failures the model can act on. Handlers must honour
// ctx: it is cancelled when the user cancels the turn.
type Handler func(ctx context.Context, call *Call) (Result, error)

// Call is one tool call of a model reply. The pipeline fills Args; the caller
// owns the Call and must not use it concurrently with [Turn.Run].
type Call struct {
	ID      string         // provider tool-call id (used for result file names, progress)
	Name    string         // tool name as the model sent it
	RawArgs string         // arguments exactly as the model sent them
	Args    map[string]any // filled by the pipeline after parsing + coercion
}

// Definition is one tool as advertised to the model (an OpenAI function).
// Parameters and ParametersJSON are shared with the registry and must not
// be mutated.
type Definition struct {
	Name, Description string
	Parameters        map[string]any
	// ParametersJSON is Parameters encoded as JSON (keys sorted), encoded
	// once per registered schema and shared by every session, so that a
	// model request need not encode the schemas again; nil if it could not
	// be encoded.
	ParametersJSON json.RawMessage
}

// ToolStatus reports one registered tool for `hermes-acp tools`.
type ToolStatus struct {
	Name, Toolset string
	Available     bool
	Reason        string // why the tool is unavailable; empty when available
}

// validate checks an entry before registration and returns a normalised
// deep copy that the registry owns.
func (e Entry) validate(prev *Entry) (*Entry, error) {
	if e.Name == "" {
		return nil, fmt.Errorf("register tool: empty name")
	}
	if len(e.Name) > maxNameLen {
		return nil, fmt.Errorf("register %s: name longer than %d characters", e.Name, maxNameLen)
	}
	for _, r := range e.Name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return nil, fmt.Errorf("register %s: name may only contain letters, digits, '_' and '-'", e.Name)
		}
	}
	if e.Toolset == "" {
		return nil, fmt.Errorf("register %s: empty toolset", e.Name)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{}}
	src := e.Schema
	encoded := new(encodedSchema)
	if prev != nil && sameMap(prev.srcSchema, src) {
		// The same schema map again (a session binding a declared tool):
		// the copy made then is the copy now, and so is its encoding.
		schema, encoded = prev.Schema, prev.schemaJSON
	} else if e.Schema != nil {
		// The registry owns a deep copy in decoded-JSON shapes
		// (map[string]any, []any, string, int, float64, bool, nil), which
		// coercion relies on. A schema written in those shapes (the tools'
		// own) is copied by a walk; anything else takes a JSON round trip.
		if c, ok := copyJSONShaped(e.Schema); ok {
			schema = c.(map[string]any)
		} else {
			raw, err := json.Marshal(e.Schema)
			if err != nil {
				return nil, fmt.Errorf("register %s: schema: %w", e.Name, err)
			}
			v, err := decodeJSON(string(raw))
			if err != nil {
				return nil, fmt.Errorf("register %s: schema: %w", e.Name, err)
			}
			var isMap bool
			if schema, isMap = v.(map[string]any); !isMap {
				return nil, fmt.Errorf("register %s: schema is not an object", e.Name)
			}
		}
		if t, ok := schema["type"]; !ok {
			schema["type"] = "object"
		} else if t != "object" {
			return nil, fmt.Errorf("register %s: schema type is %v, want object", e.Name, t)
		}
		if p, ok := schema["properties"]; ok {
			if _, isMap := p.(map[string]any); !isMap {
				return nil, fmt.Errorf("register %s: schema properties must be an object, got %T", e.Name, p)
			}
		}
	}
	out := e
	out.Schema, out.srcSchema, out.schemaJSON = schema, src, encoded
	out.RequiresEnv = slices.Clone(e.RequiresEnv)
	out.LineArgs = slices.Clone(e.LineArgs)
	return &out, nil
}

// copyJSONShaped deep-copies v when it holds only the shapes decodeJSON
// produces, and reports false otherwise (or for a float that is whole and
// fits an int, which decoding would have made an int).
func copyJSONShaped(v any) (any, bool) {
	switch t := v.(type) {
	case nil, string, bool, int:
		return t, true
	case float64:
		return t, !math.IsNaN(t) && !math.IsInf(t, 0) && t != math.Trunc(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			c, ok := copyJSONShaped(x)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			c, ok := copyJSONShaped(x)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}
