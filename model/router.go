package model

import (
	"context"
	"fmt"
	"strings"
)

// SplitModel splits a model name of the form "wire:name" ("anthropic:…",
// "openai:…"), as the model picker lists models of several providers. A
// name without a known wire prefix returns wire "".
func SplitModel(s string) (wire, name string) {
	s = strings.TrimSpace(s)
	if w, n, ok := strings.Cut(s, ":"); ok && n != "" {
		switch strings.ToLower(w) {
		case WireAnthropic, WireOpenAI:
			return strings.ToLower(w), n
		}
	}
	return "", s
}

// Router serves a session whose model can change between providers: each
// request goes to the provider of its model's wire, so one conversation
// can move from an OpenAI-compatible model to an Anthropic one and back.
// The history converts both ways because every provider reads the same
// [Message] values. It is safe for concurrent use.
type Router struct {
	def   string              // the wire of names without a prefix
	wires map[string]Provider // by wire
}

var _ Provider = (*Router)(nil)

// newRouter builds the provider of cfg.Model's wire and, when cfg.Others
// names other wires, a Router over all of them.
func newRouter(cfg Config) (Provider, error) {
	wire, name := SplitModel(cfg.Model)
	if wire == "" {
		wire = normalWire(cfg.Provider)
	}
	own := cfg
	own.Model = name
	def, err := newWire(wire, own)
	if err != nil {
		return nil, err
	}
	if len(cfg.Others) == 0 && wire == normalWire(cfg.Provider) {
		return def, nil
	}
	r := &Router{def: wire, wires: map[string]Provider{wire: def}}
	for w, ep := range cfg.Others {
		w = normalWire(w)
		if _, ok := r.wires[w]; ok {
			continue
		}
		other := cfg
		other.Model, other.BaseURL, other.APIKey = "", ep.BaseURL, ep.APIKey
		p, err := newWire(w, other)
		if err != nil {
			return nil, err
		}
		r.wires[w] = p
	}
	return r, nil
}

func normalWire(w string) string {
	if strings.EqualFold(strings.TrimSpace(w), WireAnthropic) {
		return WireAnthropic
	}
	return WireOpenAI
}

func newWire(wire string, cfg Config) (Provider, error) {
	if wire == WireAnthropic {
		return newAnthropic(cfg)
	}
	return newOpenAI(cfg)
}

// Name returns the name of the default model's provider.
func (r *Router) Name() string { return r.wires[r.def].Name() }

// NameFor returns the name of the provider that serves model.
func (r *Router) NameFor(model string) string {
	wire, _ := SplitModel(model)
	if p := r.wires[wire]; p != nil {
		return p.Name()
	}
	return r.Name()
}

// Stream sends req to the provider of req.Model's wire, with the prefix
// taken off the model name.
func (r *Router) Stream(ctx context.Context, req Request, emit func(Delta)) (*Reply, error) {
	wire, name := SplitModel(req.Model)
	if wire == "" {
		wire = r.def
	}
	p := r.wires[wire]
	if p == nil {
		return nil, configError(fmt.Sprintf("The model %q is served by the %s API, which is not configured. %s", req.Model, wire, wireHelp(wire)), nil)
	}
	req.Model = name
	return p.Stream(ctx, req, emit)
}

func wireHelp(wire string) string {
	if wire == WireAnthropic {
		return "Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a server other than api.anthropic.com)."
	}
	return "Set OPENAI_BASE_URL and OPENAI_API_KEY, or model.base_url in $HERMES_HOME/config.yaml."
}
