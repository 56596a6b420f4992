package toolsets

import (
	"maps"
	"slices"
	"strings"
)

// Toolset is one named group of tools.
type Toolset struct {
	Name, Description string
	// Tools are the toolset's own tools, in hermes's order.
	Tools []string
	// Includes names other toolsets whose tools this one also offers.
	Includes []string
	// Posture marks a per-session posture (coding): like a hermes-* bundle,
	// disabling it removes only its tools outside the core list.
	Posture bool
}

// coreTools is hermes's _HERMES_CORE_TOOLS (0.18.2 names), shared by the CLI,
// cron and every messaging platform bundle.
var coreTools = []string{
	"web_search", "web_extract",
	"terminal", "process",
	"read_terminal", "close_terminal",
	"read_file", "write_file", "patch", "search_files",
	"vision_analyze", "image_generate",
	"skills_list", "skill_view", "skill_manage",
	"browser_navigate", "browser_snapshot", "browser_click",
	"browser_type", "browser_scroll", "browser_back",
	"browser_press", "browser_get_images",
	"browser_vision", "browser_console", "browser_cdp", "browser_dialog",
	"text_to_speech",
	"todo", "memory",
	"session_search",
	"clarify",
	"execute_code", "delegate_task",
	"cronjob",
	"ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service",
	"kanban_show", "kanban_list", "kanban_complete", "kanban_block", "kanban_heartbeat",
	"kanban_comment", "kanban_create", "kanban_link", "kanban_unblock",
	"computer_use",
}

// hermesACPTools is the hermes-acp toolset, verbatim and in order.
var hermesACPTools = []string{
	"web_search", "web_extract", "terminal", "process", "read_file", "write_file", "patch",
	"search_files", "vision_analyze", "skills_list", "skill_view", "skill_manage",
	"browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_scroll",
	"browser_back", "browser_press", "browser_get_images", "browser_vision", "browser_console",
	"browser_cdp", "browser_dialog", "todo", "memory", "session_search", "execute_code",
	"delegate_task",
}

var (
	haTools     = []string{"ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service"}
	feishuTools = []string{"feishu_doc_read", "feishu_drive_list_comments", "feishu_drive_list_comment_replies",
		"feishu_drive_reply_comment", "feishu_drive_add_comment"}
	webhookSafeTools = []string{"web_search", "web_extract", "vision_analyze", "clarify"}
)

// coreWithout returns the core list minus excluded names and, unless
// keepKanban, every kanban_* tool; order is kept.
func coreWithout(keepKanban bool, excluded ...string) []string {
	var out []string
	for _, t := range coreTools {
		if slices.Contains(excluded, t) || !keepKanban && strings.HasPrefix(t, "kanban_") {
			continue
		}
		out = append(out, t)
	}
	return out
}

func withPrefix(prefix string) []string {
	var out []string
	for _, t := range coreTools {
		if strings.HasPrefix(t, prefix) {
			out = append(out, t)
		}
	}
	return out
}

// codingTools is the coding posture: core without image generation, speech,
// cron, computer use, home automation and kanban.
var codingTools = coreWithout(false, append([]string{"image_generate", "text_to_speech", "cronjob", "computer_use"}, haTools...)...)

func ts(name, description string, tools []string, includes ...string) Toolset {
	return Toolset{Name: name, Description: description, Tools: tools, Includes: includes}
}

func bundle(name, description string, extras ...string) Toolset {
	return ts(name, description, append(slices.Clone(coreTools), extras...))
}

// table is hermes's static TOOLSETS. It is never modified after package
// initialisation; Lookup hands out copies.
var table = func() map[string]Toolset {
	list := []Toolset{
		// Basic toolsets.
		ts("web", "Web research and content extraction tools", []string{"web_search", "web_extract"}),
		ts("search", "Web search only (no content extraction/scraping)", []string{"web_search"}),
		ts("vision", "Image analysis and vision tools", []string{"vision_analyze"}),
		ts("image_gen", "Creative generation tools (images)", []string{"image_generate"}),
		ts("terminal", "Terminal/command execution and process management tools", []string{"terminal", "process"}),
		ts("skills", "Access, create, edit, and manage skill documents with specialized instructions and knowledge",
			[]string{"skills_list", "skill_view", "skill_manage"}),
		ts("browser", "Browser automation for web interaction (navigate, click, type, scroll, iframes, hold-click)", withPrefix("browser_")),
		ts("cronjob", "Cronjob management tool - create, list, update, pause, resume, remove, and trigger scheduled tasks", []string{"cronjob"}),
		ts("file", "File manipulation tools: read, write, patch (with fuzzy matching), and search (content + files)",
			[]string{"read_file", "write_file", "patch", "search_files"}),
		ts("tts", "Text-to-speech: convert text to audio", []string{"text_to_speech"}),
		ts("todo", "Task planning and tracking for multi-step work", []string{"todo"}),
		ts("memory", "Persistent memory across sessions (personal notes + user profile)", []string{"memory"}),
		ts("session_search", "Search and recall past conversations", []string{"session_search"}),
		ts("clarify", "Ask the user clarifying questions (multiple-choice or open-ended)", []string{"clarify"}),
		ts("code_execution", "Run Python scripts that call tools programmatically (reduces LLM round trips)", []string{"execute_code"}),
		ts("delegation", "Spawn subagents with isolated context for complex subtasks", []string{"delegate_task"}),
		ts("homeassistant", "Home Assistant smart home control and monitoring", haTools),
		ts("kanban", "Kanban multi-agent coordination (active only when spawned by the kanban dispatcher)", withPrefix("kanban_")),
		ts("computer_use", "Background desktop control (screenshots, mouse, keyboard, scroll, drag)", []string{"computer_use"}),

		// Scenario-specific composites.
		ts("debugging", "Debugging and troubleshooting toolkit", []string{"terminal", "process"}, "web", "file"),
		ts("safe", "Safe toolkit without terminal access", nil, "web", "vision", "image_gen"),

		// Full bundles.
		ts("hermes-acp", "Editor integration (VS Code, Zed, JetBrains) — coding-focused tools without messaging, audio, or clarify UI", hermesACPTools),
		ts("hermes-api-server", "OpenAI-compatible API server — full agent tools accessible via HTTP (no interactive UI tools like clarify or send_message)",
			coreWithout(false, "text_to_speech", "clarify", "computer_use")),
		bundle("hermes-cli", "Full interactive CLI toolset - all default tools plus cronjob management"),
		bundle("hermes-cron", "Default cron toolset - same core tools as hermes-cli"),
		bundle("hermes-telegram", "Telegram bot toolset - full access for personal use (terminal has safety checks)"),
		bundle("hermes-discord", "Discord bot toolset - full access (terminal has safety checks via dangerous command approval)", "discord", "discord_admin"),
		bundle("hermes-whatsapp", "WhatsApp bot toolset - similar to Telegram (personal messaging, more trusted)"),
		bundle("hermes-slack", "Slack bot toolset - full access for workspace use (terminal has safety checks)"),
		bundle("hermes-signal", "Signal bot toolset - encrypted messaging platform (full access)"),
		bundle("hermes-bluebubbles", "BlueBubbles iMessage bot toolset - Apple iMessage via local BlueBubbles server"),
		bundle("hermes-homeassistant", "Home Assistant bot toolset - smart home event monitoring and control"),
		bundle("hermes-email", "Email bot toolset - interact with Hermes via email (IMAP/SMTP)"),
		bundle("hermes-mattermost", "Mattermost bot toolset - self-hosted team messaging (full access)"),
		bundle("hermes-matrix", "Matrix bot toolset - decentralized encrypted messaging (full access)"),
		bundle("hermes-dingtalk", "DingTalk bot toolset - enterprise messaging platform (full access)"),
		bundle("hermes-feishu", "Feishu/Lark bot toolset - enterprise messaging via Feishu/Lark (full access)", feishuTools...),
		bundle("hermes-weixin", "Weixin bot toolset - personal WeChat messaging via iLink (full access)"),
		bundle("hermes-qqbot", "QQBot toolset - QQ messaging via Official Bot API v2 (full access)"),
		bundle("hermes-wecom", "WeCom bot toolset - enterprise WeChat messaging (full access)"),
		bundle("hermes-wecom-callback", "WeCom callback toolset - enterprise self-built app messaging (full access)"),
		bundle("hermes-sms", "SMS bot toolset - interact with Hermes via SMS (Twilio)"),
		ts("hermes-webhook", "Webhook toolset - receive and process external webhook events", webhookSafeTools),
		ts("hermes-gateway", "Gateway toolset - union of all messaging platform tools", nil,
			"hermes-telegram", "hermes-discord", "hermes-whatsapp", "hermes-slack", "hermes-signal",
			"hermes-bluebubbles", "hermes-homeassistant", "hermes-email", "hermes-sms", "hermes-mattermost",
			"hermes-matrix", "hermes-dingtalk", "hermes-feishu", "hermes-wecom", "hermes-wecom-callback",
			"hermes-weixin", "hermes-qqbot", "hermes-webhook"),
	}
	coding := ts("coding", "Coding-focused toolset: files, terminal, search, web docs, skills, todo, delegate, vision, browser", codingTools)
	coding.Posture = true
	list = append(list, coding)
	m := make(map[string]Toolset, len(list))
	for _, t := range list {
		m[t.Name] = t
	}
	return m
}()

// legacyToolsets maps hermes's old "*_tools" names to tool lists
// (model_tools._LEGACY_TOOLSET_MAP).
var legacyToolsets = map[string][]string{
	"web_tools":      {"web_search", "web_extract"},
	"terminal_tools": {"terminal"},
	"vision_tools":   {"vision_analyze"},
	"image_tools":    {"image_generate"},
	"skills_tools":   {"skills_list", "skill_view", "skill_manage"},
	"browser_tools": {"browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_scroll",
		"browser_back", "browser_press", "browser_get_images", "browser_vision", "browser_console"},
	"cronjob_tools": {"cronjob"},
	"file_tools":    {"read_file", "write_file", "patch", "search_files"},
	"tts_tools":     {"text_to_speech"},
}

// Names returns every static toolset name, sorted (for `hermes-acp tools`).
func Names() []string { return slices.Sorted(maps.Keys(table)) }

// Lookup returns a copy of the static toolset called name (without tools
// registered at run time; see [Resolve] for those).
func Lookup(name string) (Toolset, bool) {
	t, ok := table[name]
	if !ok {
		return Toolset{}, false
	}
	t.Tools = slices.Clone(t.Tools)
	t.Includes = slices.Clone(t.Includes)
	return t, true
}

// Legacy returns the tools of a legacy "*_tools" toolset name.
func Legacy(name string) ([]string, bool) {
	tools, ok := legacyToolsets[name]
	return slices.Clone(tools), ok
}

// LegacyNames returns every legacy toolset name, sorted.
func LegacyNames() []string { return slices.Sorted(maps.Keys(legacyToolsets)) }
