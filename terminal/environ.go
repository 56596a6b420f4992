package terminal

import (
	"os"
	"slices"
	"sort"
	"strings"
)

// Environ builds the environment of the commands the agent starts for the
// model on this machine: the agent's own environment without the variables
// that hold the agent's secrets (hermes-agent's blocklist: the providers'
// API keys and base URLs, the tools' keys, the messaging gateways' tokens,
// plus Block), then the command's own additions. Passthrough keeps named
// variables that a rule would remove. Names are compared without regard to
// case, as hermes does. The zero value strips hermes's list from
// os.Environ(). An Environ is safe for concurrent use once built; its
// fields must not change then.
type Environ struct {
	// Base is the environment to start from ("KEY=value"); nil means
	// os.Environ().
	Base []string
	// Block names more variables to remove: the ones the configuration
	// reads secrets from (model.api_key_env and the like).
	Block []string
	// Passthrough names variables to keep even when a rule removes them
	// (terminal.env_passthrough).
	Passthrough []string
}

// Build returns the base environment without the blocked variables, with
// add applied (add wins over the base, and is never filtered: it is the
// agent's own, such as TERM or the tool socket of a script).
func (e Environ) Build(add map[string]string) []string {
	base := e.Base
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := cutEnv(kv)
		if _, ok := add[k]; ok {
			continue
		}
		if e.Blocked(k) {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(add))
	for k := range add {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+add[k])
	}
	return out
}

// Blocked reports whether Build removes the variable name.
func (e Environ) Blocked(name string) bool {
	if slices.ContainsFunc(e.Passthrough, func(p string) bool { return strings.EqualFold(p, name) }) {
		return false
	}
	up := strings.ToUpper(name)
	if strings.HasPrefix(up, forcePrefix) {
		return true
	}
	if _, ok := secretEnv[up]; ok {
		return true
	}
	return slices.ContainsFunc(e.Block, func(b string) bool { return strings.EqualFold(b, name) })
}

// SecretEnv reports whether name is in hermes-agent's blocklist of secret
// variables (see Environ).
func SecretEnv(name string) bool {
	_, ok := secretEnv[strings.ToUpper(name)]
	return ok
}

// forcePrefix is hermes's prefix of variables meant for the agent only.
const forcePrefix = "_HERMES_FORCE_"

// secretEnv is hermes-agent's _HERMES_PROVIDER_ENV_BLOCKLIST
// (tools/environments/local.py): its explicit list, the API-key and
// base-URL variables of its provider registry (hermes_cli/auth.py), and
// the "tool" and "messaging" variables of its OPTIONAL_ENV_VARS
// (hermes_cli/config.py); plus the variables this agent itself reads keys
// from (web search backends, the SSH backend's key).
var secretEnv = func() map[string]struct{} {
	names := []string{
		// hermes's explicit list
		"OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION",
		"OPENROUTER_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "LLM_MODEL",
		"GOOGLE_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "TOGETHER_API_KEY",
		"PERPLEXITY_API_KEY", "COHERE_API_KEY", "FIREWORKS_API_KEY", "XAI_API_KEY", "HELICONE_API_KEY",
		"PARALLEL_API_KEY", "FIRECRAWL_API_KEY", "FIRECRAWL_API_URL",
		"TELEGRAM_HOME_CHANNEL", "TELEGRAM_HOME_CHANNEL_NAME", "DISCORD_HOME_CHANNEL", "DISCORD_HOME_CHANNEL_NAME",
		"DISCORD_REQUIRE_MENTION", "DISCORD_FREE_RESPONSE_CHANNELS", "DISCORD_AUTO_THREAD",
		"SLACK_HOME_CHANNEL", "SLACK_HOME_CHANNEL_NAME", "SLACK_ALLOWED_USERS",
		"WHATSAPP_ENABLED", "WHATSAPP_MODE", "WHATSAPP_ALLOWED_USERS",
		"SIGNAL_HTTP_URL", "SIGNAL_ACCOUNT", "SIGNAL_ALLOWED_USERS", "SIGNAL_GROUP_ALLOWED_USERS",
		"SIGNAL_HOME_CHANNEL", "SIGNAL_HOME_CHANNEL_NAME", "SIGNAL_IGNORE_STORIES",
		"HASS_TOKEN", "HASS_URL", "EMAIL_ADDRESS", "EMAIL_PASSWORD", "EMAIL_IMAP_HOST", "EMAIL_SMTP_HOST",
		"EMAIL_HOME_ADDRESS", "EMAIL_HOME_ADDRESS_NAME", "HERMES_DASHBOARD_SESSION_TOKEN", "GATEWAY_ALLOWED_USERS",
		"GH_TOKEN", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY_PATH", "GITHUB_APP_INSTALLATION_ID",
		"MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET", "DAYTONA_API_KEY",
		// the provider registry's key and base-URL variables
		"LM_API_KEY", "LM_BASE_URL", "COPILOT_GITHUB_TOKEN", "GITHUB_TOKEN", "COPILOT_API_BASE_URL",
		"COPILOT_ACP_BASE_URL", "GEMINI_API_KEY", "GEMINI_BASE_URL", "GLM_API_KEY", "ZAI_API_KEY",
		"Z_AI_API_KEY", "GLM_BASE_URL", "KIMI_API_KEY", "KIMI_CODING_API_KEY", "KIMI_BASE_URL",
		"KIMI_CN_API_KEY", "STEPFUN_API_KEY", "STEPFUN_BASE_URL", "ARCEEAI_API_KEY", "ARCEE_BASE_URL",
		"GMI_API_KEY", "GMI_BASE_URL", "ACTUAL_API_KEY", "ACTUAL_BASE_URL", "MINIMAX_API_KEY",
		"MINIMAX_BASE_URL", "ANTHROPIC_API_KEY", "DASHSCOPE_API_KEY", "DASHSCOPE_BASE_URL",
		"ALIBABA_CODING_PLAN_API_KEY", "ALIBABA_CODING_PLAN_BASE_URL", "MINIMAX_CN_API_KEY",
		"MINIMAX_CN_BASE_URL", "DEEPSEEK_BASE_URL", "XAI_BASE_URL", "NVIDIA_API_KEY", "NVIDIA_BASE_URL",
		"AI_GATEWAY_API_KEY", "AI_GATEWAY_BASE_URL", "OPENCODE_ZEN_API_KEY", "OPENCODE_ZEN_BASE_URL",
		"OPENCODE_GO_API_KEY", "OPENCODE_GO_BASE_URL", "KILOCODE_API_KEY", "KILOCODE_BASE_URL",
		"HF_TOKEN", "HF_BASE_URL", "XIAOMI_API_KEY", "XIAOMI_BASE_URL", "TOKENHUB_API_KEY",
		"TOKENHUB_BASE_URL", "TOKENPLAN_API_KEY", "TOKENPLAN_BASE_URL", "OLLAMA_API_KEY", "OLLAMA_BASE_URL",
		"BEDROCK_BASE_URL", "AWS_BEARER_TOKEN_BEDROCK", "AZURE_FOUNDRY_API_KEY", "AZURE_FOUNDRY_BASE_URL",
		// OPTIONAL_ENV_VARS of the "tool" and "messaging" categories
		"EXA_API_KEY", "FIRECRAWL_GATEWAY_URL", "TOOL_GATEWAY_DOMAIN", "TOOL_GATEWAY_SCHEME",
		"TOOL_GATEWAY_USER_TOKEN", "TAVILY_API_KEY", "BROWSERBASE_API_KEY", "BROWSERBASE_PROJECT_ID",
		"BROWSER_USE_API_KEY", "FIRECRAWL_BROWSER_TTL", "CAMOFOX_URL", "FAL_KEY", "TINKER_API_KEY",
		"WANDB_API_KEY", "VOICE_TOOLS_OPENAI_KEY", "ELEVENLABS_API_KEY", "HONCHO_API_KEY", "HONCHO_BASE_URL",
		"TELEGRAM_BOT_TOKEN", "TELEGRAM_ALLOWED_USERS", "TELEGRAM_PROXY", "DISCORD_BOT_TOKEN",
		"DISCORD_ALLOWED_USERS", "DISCORD_REPLY_TO_MODE", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN",
		"MATTERMOST_URL", "MATTERMOST_TOKEN", "MATTERMOST_ALLOWED_USERS", "MATTERMOST_REQUIRE_MENTION",
		"MATTERMOST_FREE_RESPONSE_CHANNELS", "MATRIX_HOMESERVER", "MATRIX_ACCESS_TOKEN", "MATRIX_PASSWORD",
		// read by this agent
		"BRAVE_SEARCH_API_KEY", "TERMINAL_SSH_KEY",
	}
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}()
