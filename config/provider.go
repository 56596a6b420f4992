package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hermes-acp/hermes-acp/model"
	"gopkg.in/yaml.v3"
)

// hermes-agent's model.provider values that reach an OpenAI-compatible
// server, with the base URL and key variables they use when config.yaml
// names none.
var openAIProviders = map[string]struct {
	baseURL string
	keyEnvs []string
}{
	"":           {},
	"auto":       {},
	"openai":     {"", []string{"OPENAI_API_KEY"}},
	"custom":     {},
	"ollama":     {"http://127.0.0.1:11434/v1", nil},
	"vllm":       {},
	"llamacpp":   {},
	"openrouter": {"https://openrouter.ai/api/v1", []string{"OPENROUTER_API_KEY", "OPENAI_API_KEY"}},
	"lmstudio":   {"http://127.0.0.1:1234/v1", []string{"LM_API_KEY"}},
}

// resolveProvider sets c's wire, base URL, key and the other wires'
// endpoints from model.provider (hermes's values), the model name's
// "wire:" prefix and the environment. A provider hermes-acp cannot talk
// to sets c.ProviderProblem, which says what to do instead.
// flagBaseURL is --base-url, which applies to the default model's wire.
func resolveProvider(c *Config, fc *fileConfig, env func(string) string, flagBaseURL string) {
	prov := strings.ToLower(strings.TrimSpace(fc.Model.Provider))
	c.ProviderSetting = prov
	wire, _ := model.SplitModel(c.Model)
	if wire == "" {
		switch {
		case prov == model.WireAnthropic:
			wire = model.WireAnthropic
		case prov == "auto" || prov == "":
			// hermes's auto: an Anthropic key alone means Anthropic;
			// anything OpenAI-ish configured means the OpenAI wire.
			if env("ANTHROPIC_API_KEY") != "" && c.BaseURL == "" && env("OPENAI_API_KEY") == "" && fc.Model.APIKeyEnv == "" && fc.Model.APIKey == "" {
				wire = model.WireAnthropic
			}
		default:
			if _, ok := openAIProviders[prov]; !ok && c.BaseURL == "" {
				c.ProviderProblem = fmt.Sprintf("model.provider %q in %s is one of hermes-agent's own integrations, which hermes-acp does not have. "+
					"Use provider anthropic (with ANTHROPIC_API_KEY), or provider custom with model.base_url set to the provider's OpenAI-compatible endpoint.", fc.Model.Provider, c.File)
			}
		}
	}
	if wire == "" {
		wire = model.WireOpenAI
	}
	c.Provider = wire
	anthropicEP := model.Endpoint{BaseURL: env("ANTHROPIC_BASE_URL"), APIKey: env("ANTHROPIC_API_KEY")}
	openAIEP := model.Endpoint{BaseURL: firstNonEmpty(env("OPENAI_BASE_URL")), APIKey: env("OPENAI_API_KEY")}
	if wire == model.WireAnthropic {
		// config.go read OPENAI_BASE_URL and the OpenAI key for the default
		// model: this model is Anthropic's, so use Anthropic's instead.
		c.BaseURL = firstNonEmpty(flagBaseURL, anthropicEP.BaseURL, fc.Model.BaseURL)
		c.APIKey, c.APIKeySource = "", ""
		switch {
		case anthropicEP.APIKey != "":
			c.APIKey, c.APIKeySource = anthropicEP.APIKey, "ANTHROPIC_API_KEY"
		case fc.Model.APIKeyEnv != "" && env(fc.Model.APIKeyEnv) != "":
			c.APIKey, c.APIKeySource = env(fc.Model.APIKeyEnv), fc.Model.APIKeyEnv
		case fc.Model.APIKey != "":
			c.APIKey, c.APIKeySource = fc.Model.APIKey, "model.api_key"
		}
		if openAIEP.BaseURL != "" || openAIEP.APIKey != "" || hasWireChoice(c.ModelChoices, model.WireOpenAI) {
			c.Others = map[string]model.Endpoint{model.WireOpenAI: openAIEP}
		}
		return
	}
	if p, ok := openAIProviders[prov]; ok {
		if c.BaseURL == "" {
			c.BaseURL = p.baseURL
		}
		if c.APIKey == "" {
			for _, k := range p.keyEnvs {
				if env(k) != "" {
					c.APIKey, c.APIKeySource = env(k), k
					break
				}
			}
		}
	}
	if c.APIKey == "" && strings.Contains(c.BaseURL, "openrouter.ai") && env("OPENROUTER_API_KEY") != "" {
		c.APIKey, c.APIKeySource = env("OPENROUTER_API_KEY"), "OPENROUTER_API_KEY"
	}
	if c.APIKey == "" && fc.Model.APIKey != "" {
		c.APIKey, c.APIKeySource = fc.Model.APIKey, "model.api_key"
	}
	if anthropicEP.APIKey != "" || anthropicEP.BaseURL != "" || hasWireChoice(c.ModelChoices, model.WireAnthropic) {
		c.Others = map[string]model.Endpoint{model.WireAnthropic: anthropicEP}
	}
}

func hasWireChoice(choices []string, wire string) bool {
	return slices.ContainsFunc(choices, func(s string) bool {
		w, _ := model.SplitModel(s)
		return w == wire
	})
}

// unknownKeys lists the keys of the config.yaml document that fileConfig
// does not have, as dotted paths ("terminal", "model.streaming"), in file
// order. Keys under a map-valued setting (mcp_servers.NAME) are the
// user's names and are not reported; their fields are.
func unknownKeys(data []byte) []string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var out []string
	walkKeys(doc.Content[0], reflect.TypeFor[fileConfig](), "", &out)
	return out
}

func walkKeys(n *yaml.Node, t reflect.Type, prefix string, out *[]string) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := map[string]reflect.Type{}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				fields[name] = f.Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if key == "<<" { // a merge key: its fields count as this mapping's
				walkKeys(n.Content[i+1], t, prefix, out)
				continue
			}
			ft, ok := fields[key]
			if !ok {
				*out = append(*out, prefix+key)
				continue
			}
			walkKeys(n.Content[i+1], ft, prefix+key+".", out)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkKeys(n.Content[i+1], t.Elem(), prefix+n.Content[i].Value+".", out)
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for _, item := range n.Content {
			walkKeys(item, t.Elem(), prefix, out)
		}
	}
}

// IgnoredNote is the one-line notice naming the settings of config.yaml
// that hermes-acp does not use, or "" when there are none. A hermes-agent
// config.yaml has many sections for hermes's other front ends; they are
// harmless, and this says so once.
func IgnoredNote(file string, ignored []string) string {
	if len(ignored) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: hermes-acp does not use these settings and ignores them: %s.", file, strings.Join(ignored, ", "))
}
