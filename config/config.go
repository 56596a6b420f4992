package config

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/terminal"

	"github.com/hermes-acp/hermes-acp/model"
)

// fileConfig is $HERMES_HOME/config.yaml. Keys follow hermes-agent where it
// has one; docs/configuration.md documents every key.
type fileConfig struct {
	Model struct {
		Default       string   `yaml:"default"`
		Model         string   `yaml:"model"` // hermes's other name for default
		Provider      string   `yaml:"provider"`
		BaseURL       string   `yaml:"base_url"`
		APIKey        string   `yaml:"api_key"`
		APIKeyEnv     string   `yaml:"api_key_env"`
		Choices       []string `yaml:"choices"`
		ContextLength int      `yaml:"context_length"`
		Timeout       int      `yaml:"timeout"` // seconds per request
		// ThinkingBudget enables Anthropic extended thinking (tokens).
		ThinkingBudget int `yaml:"thinking_budget"`
		// vision (vision.go): false means the model cannot
		// see images; supports_vision is hermes's name.
		Vision         *bool `yaml:"vision"`
		SupportsVision *bool `yaml:"supports_vision"`
	} `yaml:"model"`
	Approvals struct {
		Mode        string `yaml:"mode"`         // manual | smart | off
		Timeout     int    `yaml:"timeout"`      // seconds
		SmartPolicy string `yaml:"smart_policy"` // rules for the smart-approval reviewer
	} `yaml:"approvals"`
	CommandAllowlist []string `yaml:"command_allowlist"`
	Toolsets         []string `yaml:"toolsets"`
	DisabledToolsets []string `yaml:"disabled_toolsets"`
	Lint             struct {
		OnNewErrors string `yaml:"on_new_errors"` // report | refuse
		GoTypes     string `yaml:"go_types"`      // on (default when a Go toolchain is found) | off
	} `yaml:"lint"`
	Agent struct {
		MaxTurns        int    `yaml:"max_turns"`        // model requests per prompt turn
		ReasoningEffort string `yaml:"reasoning_effort"` // none | low | medium | high | xhigh
	} `yaml:"agent"`
	MCPServers map[string]MCPServer `yaml:"mcp_servers"`
	// Compression is hermes's context compression (issue #13).
	Compression struct {
		Enabled   *bool   `yaml:"enabled"`   // default true
		Threshold float64 `yaml:"threshold"` // share of model.context_length; default 0.80
	} `yaml:"compression"`
	// Checkpoints (issue 29): the workspace before each turn's first change.
	Checkpoints struct {
		Enabled        *bool `yaml:"enabled"`           // default true
		MaxTotalSizeMB int   `yaml:"max_total_size_mb"` // per workspace folder; default 500
		MaxFileSizeMB  int   `yaml:"max_file_size_mb"`  // larger files are left out; default 10
		MaxFiles       int   `yaml:"max_files"`         // larger folders are not recorded; default 50000
	} `yaml:"checkpoints"`
	FS struct {
		Timeout int `yaml:"timeout"` // seconds to wait for the editor's fs/* answer
	} `yaml:"fs"`
	// ToolLoopGuardrails is hermes's per-turn loop controller; 0 or absent
	// thresholds keep hermes's defaults.
	ToolLoopGuardrails struct {
		WarningsEnabled          *bool `yaml:"warnings_enabled"`
		HardStopEnabled          bool  `yaml:"hard_stop_enabled"`
		ExactFailureWarnAfter    int   `yaml:"exact_failure_warn_after"`
		ExactFailureBlockAfter   int   `yaml:"exact_failure_block_after"`
		SameToolFailureWarnAfter int   `yaml:"same_tool_failure_warn_after"`
		SameToolFailureHaltAfter int   `yaml:"same_tool_failure_halt_after"`
		NoProgressWarnAfter      int   `yaml:"no_progress_warn_after"`
		NoProgressBlockAfter     int   `yaml:"no_progress_block_after"`
	} `yaml:"tool_loop_guardrails"`
	// terminal: the terminal and process tools (issue 11). hermes's other
	// terminal.* keys (modal_*, …) are listed as ignored.
	Terminal struct {
		Timeout              int      `yaml:"timeout"`                // seconds; default 180
		MaxForegroundTimeout int      `yaml:"max_foreground_timeout"` // seconds; default 600
		Sandbox              string   `yaml:"sandbox"`                // workspace-write (default) | landlock | off
		SandboxWritable      []string `yaml:"sandbox_writable"`       // more writable folders
		SandboxHidden        []string `yaml:"sandbox_hidden"`         // more hidden places
		PrivateTmp           *bool    `yaml:"private_tmp"`            // a /tmp per session (default true)
		EnvPassthrough       []string `yaml:"env_passthrough"`        // secret variables commands keep
		Network              string   `yaml:"network"`                // ask (default) | on | off
		Credentials          string   `yaml:"credentials"`            // ask (default) | on | off
		Limits               struct {
			Processes    *int   `yaml:"processes"`     // per session (default 4096)
			AddressSpace string `yaml:"address_space"` // per process: bytes, 512M, 4G, unlimited (default)
			CPUTime      *int   `yaml:"cpu_time"`      // seconds per process (default unlimited)
			FileSize     string `yaml:"file_size"`     // largest file: bytes, 512M, 16G (default), unlimited
		} `yaml:"limits"`
		// terminal backends (issue 18): local | docker | ssh, and docker's
		// settings, nested (terminal.docker.image) or in hermes's flat
		// names (terminal.docker_image, container_cpu, container_memory).
		Backend         string           `yaml:"backend"`
		Docker          dockerFileConfig `yaml:"docker"`
		DockerImage     string           `yaml:"docker_image"`
		ContainerCPU    float64          `yaml:"container_cpu"`
		ContainerMemory int64            `yaml:"container_memory"` // MB
		// ssh (issue 18): terminal.ssh.* and hermes-agent's flat names (ssh.go).
		SSH     sshFileConfig `yaml:"ssh"`
		SSHHost string        `yaml:"ssh_host"`
		SSHPort int           `yaml:"ssh_port"`
		SSHUser string        `yaml:"ssh_user"`
		SSHKey  string        `yaml:"ssh_key"`
	} `yaml:"terminal"`
	ToolOutput struct {
		MaxBytes int `yaml:"max_bytes"` // characters of command output a result keeps; default 50000
	} `yaml:"tool_output"`
	// Delegation is delegate_task's limits (issue #16). hermes-agent's names
	// max_concurrent_children and max_spawn_depth are read too.
	Delegation struct {
		MaxConcurrent         int    `yaml:"max_concurrent"`
		MaxConcurrentChildren int    `yaml:"max_concurrent_children"`
		MaxDepth              int    `yaml:"max_depth"`
		MaxSpawnDepth         int    `yaml:"max_spawn_depth"`
		MaxIterations         int    `yaml:"max_iterations"`
		Model                 string `yaml:"model"`
	} `yaml:"delegation"`
	// CodeExecution is execute_code's settings (issue #16), hermes's
	// code_execution section.
	CodeExecution struct {
		Mode         string `yaml:"mode"`           // project (default) or strict
		Timeout      int    `yaml:"timeout"`        // seconds; default 300
		MaxToolCalls int    `yaml:"max_tool_calls"` // default 50
	} `yaml:"code_execution"`
	// web: the web tools (issue #14), and the auxiliary models of side tasks
	// keyed by task: auxiliary.web_extract summarises pages (web.go),
	// auxiliary.vision sees images when model.vision is false (vision.go).
	Web       webFileConfig       `yaml:"web"`
	Auxiliary map[string]AuxModel `yaml:"auxiliary"`
	// Skills (issue #14) is hermes's skills section.
	Skills struct {
		Disabled         []string `yaml:"disabled"`          // skill names hidden from the session
		ProjectDiscovery *bool    `yaml:"project_discovery"` // default true: <workspace>/.hermes/skills
		ExternalDirs     []string `yaml:"external_dirs"`     // more skills folders, after $HERMES_HOME/skills
	} `yaml:"skills"`
	// Browser configures the browser_* tools.
	Browser struct {
		Executable  string `yaml:"executable"`   // Chromium or Chrome; default: found in PATH
		IdleTimeout int    `yaml:"idle_timeout"` // seconds of inactivity before the browser stops; default 300
		// InactivityTimeout is hermes-agent's name for idle_timeout.
		InactivityTimeout int  `yaml:"inactivity_timeout"`
		AllowPrivateURLs  bool `yaml:"allow_private_urls"` // navigation to private network addresses (loopback is always allowed)
	} `yaml:"browser"`
}

// MCPServer configures an MCP server in config.yaml (hermes's shape).
type MCPServer struct {
	Command   string            `yaml:"command"`
	Args      []string          `yaml:"args"`
	Env       map[string]string `yaml:"env"`
	URL       string            `yaml:"url"`
	Transport string            `yaml:"transport"` // http (default for url) | sse
	Headers   map[string]string `yaml:"headers"`
	Enabled   *bool             `yaml:"enabled"`
	// ParallelToolCalls lets the server's tools run concurrently with other
	// parallel-safe calls of a batch (hermes's supports_parallel_tool_calls).
	ParallelToolCalls bool `yaml:"supports_parallel_tool_calls"`
}

// config is the effective configuration after flags, environment and file.
type Config struct {
	Home            string
	Model           string
	BaseURL         string
	APIKey          string
	APIKeySource    string // where the key came from, for messages
	Provider        string // the default model's wire: model.WireOpenAI or model.WireAnthropic
	ProviderSetting string // model.provider as written, lower-cased
	ProviderProblem string // model.provider names a provider hermes-acp cannot use
	Others          map[string]model.Endpoint
	ThinkingBudget  int
	ReasoningEffort string
	// Ignored lists the config.yaml settings hermes-acp does not use
	// ("terminal", "model.streaming"); IgnoredNote words them for the log.
	Ignored       []string
	ModelChoices  []string
	ContextLength int
	// CompressAt is compression.threshold (0: the default); CompressOff is
	// compression.enabled: false.
	CompressAt      float64
	CompressOff     bool
	ModelTimeout    time.Duration
	ApprovalsOff    bool
	ApprovalTimeout time.Duration
	Allowlist       []string
	Toolsets        []string
	Disabled        []string
	LintRefuse      bool
	// GoTypesOff is lint.go_types: off — Go edits get the syntax lint
	// only, no type check.
	GoTypesOff bool
	MaxTurns   int
	MCPServers map[string]MCPServer
	File       string // config file path
	FileErr    error  // a config file that exists but is broken (logged)
	FSTimeout  time.Duration
	// Checkpoints (issue 29): CheckpointsOff is checkpoints.enabled: false;
	// the limits are in bytes and files, 0 for the defaults.
	CheckpointsOff                        bool
	CheckpointMaxTotal, CheckpointMaxFile int64
	CheckpointMaxFiles                    int
	Guardrails                            registry.GuardrailConfig // tool_loop_guardrails
	Delegation                            Delegation               // delegation.*
	CodeExecution                         CodeExecution            // code_execution.* (execute_code, issue #16)
	// Web is the web tools' configuration (web.go).
	Web Web
	// Skills (issue #14): skills.disabled, skills.project_discovery: false,
	// skills.external_dirs (absolute, ~ expanded).
	SkillsDisabled   []string
	SkillsProjectOff bool
	SkillsExternal   []string
	// NoVision is model.vision: false; AuxVision is the auxiliary.vision
	// model, nil when none is set (vision.go).
	NoVision  bool
	AuxVision *AuxEndpoint
	// browser.*: the browser tools' executable, idle timeout and private
	// URL opt-in.
	BrowserExecutable   string
	BrowserIdleTimeout  time.Duration
	BrowserAllowPrivate bool
	// Problems are the file's bad values and syntax errors in plain words,
	// each naming its key; shown in the chat once (Notice).
	Problems []string

	// terminal: terminal.timeout, terminal.max_foreground_timeout and
	// tool_output.max_bytes (0: the defaults); the sandbox's keys:
	// terminal.sandbox (off, landlock), sandbox_writable, sandbox_hidden,
	// private_tmp (SharedTmp when false), env_passthrough and limits.
	TerminalTimeout       time.Duration
	TerminalMaxForeground time.Duration
	ToolOutputMaxChars    int
	SandboxOff            bool
	SandboxLandlock       bool
	SandboxWritable       []string
	SandboxHidden         []string
	SharedTmp             bool
	EnvPassthrough        []string
	Limits                terminal.Limits
	// terminal.network and terminal.credentials: "ask" (the default),
	// "on" or "off".
	TerminalNetwork, TerminalCredentials string
	// terminal backends (issue 18): terminal.backend and terminal.docker.*.
	TerminalBackend string
	Docker          DockerSettings
	// ssh (issue 18): terminal.ssh.* (ssh.go).
	SSH SSHSettings
	// ApprovalsSmart is approvals.mode: smart (issue 25): a reviewer model
	// sees a flagged command before the user; SmartPolicy is
	// approvals.smart_policy; AuxApproval the auxiliary.approval model
	// (nil: the session's model reviews).
	ApprovalsSmart bool
	SmartPolicy    string
	AuxApproval    *AuxEndpoint
}

// problem records a bad value of the config file.
func (c *Config) problem(p string) {
	c.Problems = append(c.Problems, p)
	c.FileErr = errors.Join(c.FileErr, fmt.Errorf("%s: %s", c.File, p))
}

// Notice is the chat notice for the file's problems; "" if none.
func (c *Config) Notice() string {
	if len(c.Problems) == 0 {
		return ""
	}
	return fmt.Sprintf("Problems in the configuration file %s:\n- %s", c.File, strings.Join(c.Problems, "\n- "))
}

// Home returns $HERMES_HOME or ~/.hermes.
func Home(getenv func(string) string) string {
	if h := getenv("HERMES_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".hermes"
	}
	return filepath.Join(home, ".hermes")
}

// Load reads the configuration. Precedence, highest first: flags
// (flagModel, flagBaseURL), environment (HERMES_MODEL, OPENAI_BASE_URL,
// OPENAI_API_KEY), $HERMES_HOME/config.yaml. $HERMES_HOME/.env fills
// variables the environment does not set.
func Load(getenv func(string) string, flagModel, flagBaseURL string) Config {
	home := Home(getenv)
	dotenv := readDotEnv(filepath.Join(home, ".env"))
	env := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return dotenv[k]
	}
	c := Config{Home: home, File: filepath.Join(home, "config.yaml")}
	var fc fileConfig
	if data, err := os.ReadFile(c.File); err == nil {
		// Key by key: a bad value leaves its setting at the default and the
		// rest of the file applies. Unknown keys (hermes-agent's other
		// sections, typos) are listed in plain words (provider.go); they
		// never discard the file.
		c.Problems = decodeConfig(data, &fc)
		c.Ignored = unknownKeys(data)
		if len(c.Problems) > 0 {
			c.FileErr = fmt.Errorf("%s: %s", c.File, strings.Join(c.Problems, "; "))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		c.FileErr = fmt.Errorf("read %s: %w", c.File, err)
		c.Problems = append(c.Problems, fmt.Sprintf("the file cannot be read (%v), so none of its settings apply", errors.Unwrap(err)))
	}
	c.Model = firstNonEmpty(flagModel, env("HERMES_MODEL"), fc.Model.Default, fc.Model.Model)
	c.BaseURL = firstNonEmpty(flagBaseURL, env("OPENAI_BASE_URL"), fc.Model.BaseURL)
	switch {
	case env("OPENAI_API_KEY") != "":
		c.APIKey, c.APIKeySource = env("OPENAI_API_KEY"), "OPENAI_API_KEY"
	case fc.Model.APIKeyEnv != "" && env(fc.Model.APIKeyEnv) != "":
		c.APIKey, c.APIKeySource = env(fc.Model.APIKeyEnv), fc.Model.APIKeyEnv
	}
	c.ModelChoices = fc.Model.Choices
	resolveProvider(&c, &fc, env, flagBaseURL)
	resolveVision(&c, &fc, env)
	c.ThinkingBudget = fc.Model.ThinkingBudget
	c.ReasoningEffort = fc.Agent.ReasoningEffort
	c.ContextLength = fc.Model.ContextLength
	c.CompressOff = fc.Compression.Enabled != nil && !*fc.Compression.Enabled
	switch t := fc.Compression.Threshold; {
	case t == 0:
	case t > 0 && t <= 1:
		c.CompressAt = t
	default:
		c.problem(fmt.Sprintf("compression.threshold: %v is not a share of the context between 0 and 1 (e.g. 0.8); using 0.8", t))
	}
	if fc.Model.Timeout > 0 {
		c.ModelTimeout = time.Duration(fc.Model.Timeout) * time.Second
	}
	switch strings.ToLower(fc.Approvals.Mode) {
	case "off":
		c.ApprovalsOff = true
	case "smart":
		c.ApprovalsSmart = true
		c.SmartPolicy = strings.TrimSpace(fc.Approvals.SmartPolicy)
		c.AuxApproval = resolveAux(&c, "approval", fc.Auxiliary["approval"], env("AUXILIARY_APPROVAL_MODEL"), defaultApprovalTimeout, env)
	case "", "manual":
	default:
		c.problem(fmt.Sprintf("approvals.mode: %q is not manual, smart or off; using manual", fc.Approvals.Mode))
	}
	if fc.Approvals.Timeout > 0 {
		c.ApprovalTimeout = time.Duration(fc.Approvals.Timeout) * time.Second
	}
	c.Allowlist = fc.CommandAllowlist
	c.Toolsets = fc.Toolsets
	c.Disabled = fc.DisabledToolsets
	switch strings.ToLower(fc.Lint.OnNewErrors) {
	case "refuse":
		c.LintRefuse = true
	case "", "report":
	default:
		c.problem(fmt.Sprintf("lint.on_new_errors: %q is not report or refuse; using report", fc.Lint.OnNewErrors))
	}
	switch strings.ToLower(strings.TrimSpace(fc.Lint.GoTypes)) {
	case "off", "false", "no":
		c.GoTypesOff = true
	case "", "on", "true", "yes":
	default:
		c.problem(fmt.Sprintf("lint.go_types: %q is not on or off; using on", fc.Lint.GoTypes))
	}
	c.MaxTurns = fc.Agent.MaxTurns
	c.MCPServers = fc.MCPServers
	resolveCheckpoints(&c, &fc)
	if fc.FS.Timeout > 0 {
		c.FSTimeout = time.Duration(fc.FS.Timeout) * time.Second
	}
	terminalConfig(&c, &fc)
	c.SkillsDisabled = fc.Skills.Disabled
	c.SkillsProjectOff = fc.Skills.ProjectDiscovery != nil && !*fc.Skills.ProjectDiscovery
	for _, d := range fc.Skills.ExternalDirs {
		if d == "~" || strings.HasPrefix(d, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				d = filepath.Join(h, d[1:])
			}
		}
		if !filepath.IsAbs(d) {
			c.problem(fmt.Sprintf("skills.external_dirs: %q is not an absolute folder (or ~/…); it is ignored", d))
			continue
		}
		c.SkillsExternal = append(c.SkillsExternal, filepath.Clean(d))
	}
	c.BrowserExecutable = fc.Browser.Executable
	c.BrowserAllowPrivate = fc.Browser.AllowPrivateURLs
	idle, idleKey := fc.Browser.IdleTimeout, "idle_timeout"
	if idle == 0 {
		idle, idleKey = fc.Browser.InactivityTimeout, "inactivity_timeout"
	}
	if idle > 0 {
		c.BrowserIdleTimeout = time.Duration(idle) * time.Second
	} else if idle < 0 {
		c.problem(fmt.Sprintf("browser.%s: %d is negative; using the default (300 seconds)", idleKey, idle))
	}
	g := fc.ToolLoopGuardrails
	c.Guardrails = registry.GuardrailConfig{
		WarningsOff:              g.WarningsEnabled != nil && !*g.WarningsEnabled,
		HardStop:                 g.HardStopEnabled,
		ExactFailureWarnAfter:    g.ExactFailureWarnAfter,
		ExactFailureBlockAfter:   g.ExactFailureBlockAfter,
		SameToolFailureWarnAfter: g.SameToolFailureWarnAfter,
		SameToolFailureHaltAfter: g.SameToolFailureHaltAfter,
		NoProgressWarnAfter:      g.NoProgressWarnAfter,
		NoProgressBlockAfter:     g.NoProgressBlockAfter,
	}
	c.Delegation = delegationConfig(&c, fc)
	c.CodeExecution = codeExecutionConfig(&c, fc) // execute_code
	webSettings(&c, &fc, env)                     // web
	sshConfig(&c, &fc, env)                       // ssh (issue 18)
	return c
}

// terminalConfig applies the terminal tool's settings.
func terminalConfig(c *Config, fc *fileConfig) {
	t := fc.Terminal
	switch {
	case t.Timeout > 0:
		c.TerminalTimeout = time.Duration(t.Timeout) * time.Second
	case t.Timeout < 0:
		c.problem(fmt.Sprintf("terminal.timeout: %d is not a number of seconds above 0; using 180", t.Timeout))
	}
	switch {
	case t.MaxForegroundTimeout > 0:
		c.TerminalMaxForeground = time.Duration(t.MaxForegroundTimeout) * time.Second
	case t.MaxForegroundTimeout < 0:
		c.problem(fmt.Sprintf("terminal.max_foreground_timeout: %d is not a number of seconds above 0; using 600", t.MaxForegroundTimeout))
	}
	switch m := fc.ToolOutput.MaxBytes; {
	case m > 0:
		c.ToolOutputMaxChars = m
	case m < 0:
		c.problem(fmt.Sprintf("tool_output.max_bytes: %d is not a number of characters above 0; using 50000", m))
	}
	switch strings.ToLower(strings.TrimSpace(t.Sandbox)) {
	case "", "workspace-write":
	case "off":
		c.SandboxOff = true
	case "landlock":
		c.SandboxLandlock = true
	default:
		c.problem(fmt.Sprintf("terminal.sandbox: %q is not workspace-write, landlock or off; using workspace-write", t.Sandbox))
	}
	sandboxConfig(c, fc)
	terminalBackendConfig(c, fc) // terminal backends (issue 18)
	for _, d := range t.SandboxWritable {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if d != "~" && !strings.HasPrefix(d, "~/") && !filepath.IsAbs(d) {
			c.problem(fmt.Sprintf("terminal.sandbox_writable: %q is not an absolute path (or ~/…); it is ignored", d))
			continue
		}
		c.SandboxWritable = append(c.SandboxWritable, d)
	}
}

// Delegation is delegate_task's limits (the delegation section); a 0 leaves
// hermes's default, which the agent applies (agent.DelegationOptions has
// the same fields).
type Delegation struct {
	MaxConcurrent int
	MaxDepth      int
	MaxIterations int
	Model         string
}

// hermes-agent's delegation defaults, which the messages about bad values
// name; the agent applies the same ones to a 0.
const (
	defaultDelegationMaxConcurrent = 3
	defaultDelegationMaxDepth      = 1
	defaultDelegationMaxIterations = 50
)

// delegationConfig is the delegation section: values below 1 are reported
// and replaced by hermes's defaults.
func delegationConfig(c *Config, fc fileConfig) Delegation {
	d := fc.Delegation
	limit := func(key string, v, hermesName, def int) int {
		if v == 0 {
			v = hermesName
		}
		if v < 0 {
			c.problem(fmt.Sprintf("delegation.%s: %d is not a whole number of at least 1; using %d", key, v, def))
			return 0
		}
		return v
	}
	return Delegation{
		MaxConcurrent: limit("max_concurrent", d.MaxConcurrent, d.MaxConcurrentChildren, defaultDelegationMaxConcurrent),
		MaxDepth:      limit("max_depth", d.MaxDepth, d.MaxSpawnDepth, defaultDelegationMaxDepth),
		MaxIterations: limit("max_iterations", d.MaxIterations, 0, defaultDelegationMaxIterations),
		Model:         strings.TrimSpace(d.Model),
	}
}

// CodeExecution is execute_code's settings (the code_execution section);
// a 0 or "" leaves hermes's default, which the tool applies.
type CodeExecution struct {
	Mode         string        // "project" (default) or "strict"
	Timeout      time.Duration // 0: 300 seconds
	MaxToolCalls int           // 0: 50
}

// codeExecutionConfig is the code_execution section (execute_code, issue
// #16): a bad value is reported and hermes's default used.
func codeExecutionConfig(c *Config, fc fileConfig) CodeExecution {
	x := fc.CodeExecution
	var out CodeExecution
	switch m := strings.ToLower(strings.TrimSpace(x.Mode)); m {
	case "", "project", "strict":
		out.Mode = m
	default:
		c.problem(fmt.Sprintf("code_execution.mode: %q is not project or strict; using project", x.Mode))
	}
	switch {
	case x.Timeout > 0:
		out.Timeout = time.Duration(x.Timeout) * time.Second
	case x.Timeout < 0:
		c.problem(fmt.Sprintf("code_execution.timeout: %d is not a number of seconds above 0; using 300", x.Timeout))
	}
	switch {
	case x.MaxToolCalls > 0:
		out.MaxToolCalls = x.MaxToolCalls
	case x.MaxToolCalls < 0:
		c.problem(fmt.Sprintf("code_execution.max_tool_calls: %d is not a whole number of at least 1; using 50", x.MaxToolCalls))
	}
	return out
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// readDotEnv parses KEY=VALUE lines (optionally quoted, "export " allowed).
func readDotEnv(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}
