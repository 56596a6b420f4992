package danger

import (
	"regexp"
	"strings"
	"sync"
)

// kind says what a rule is matched against.
type kind uint8

const (
	// kindCmd rules describe one command: matched, anchored at its command
	// word, against each view of each simple command (the command with its
	// wrappers, then without them: "sudo rm -rf x", "rm -rf x").
	kindCmd kind = iota
	// kindRedir rules describe an output redirection: matched against each
	// redirection rendered as "<op> <target>" ("> /etc/passwd").
	kindRedir
	// kindArgs rules describe text that is dangerous wherever a command hands
	// it to a program (SQL): matched against the views of commands that do
	// not just print or search their arguments.
	kindArgs
	// kindWhole rules describe pipelines and command lists (curl | sh,
	// chmod +x x; ./x): matched against the whole command with quoted text
	// masked, and against each pipeline rebuilt from its simple commands.
	kindWhole
	// kindWalk rules are found by the walk itself (an expansion it cannot
	// resolve, a file the command writes, a git option): their entry only
	// gives the key its place in the verdict.
	kindWalk
)

// rule is one pattern: the approval key, what it is matched against, and
// how. Several rules may share a key (spellings of one danger); a verdict
// names each key once.
type rule struct {
	key  string
	kind kind
	// re matches a view or string as the kind says (kindCmd: anchored at
	// the start of the view).
	re *regexp.Regexp
	// fn, when set, decides kindCmd rules structurally from a view instead of re.
	fn func(v *view) bool
	// loose is the unanchored form used over the whole normalised command
	// when it cannot be parsed (hermes's own regex, fail closed).
	loose *regexp.Regexp
	// needles, when set, are words one of which a string must contain for
	// the rule to possibly match (a cheap filter before the regexes);
	// prefix is the literal start a view must have for a command rule.
	needles []string
	prefix  string
}

// need sets the rule's needles.
func (r rule) need(words ...string) rule {
	r.needles = words
	return r
}

// possible reports whether s can match r at all.
func (r *rule) possible(s string) bool {
	if len(r.needles) == 0 {
		return true
	}
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// Path fragments of hermes's sensitive write targets, lowercase (every
// string matched is lowercased first, as hermes does).
const (
	sshPath        = `(?:~|\$home|\$\{home\})/\.ssh(?:/|$|\s)`
	hermesEnv      = `(?:~/\.hermes/|(?:\$home|\$\{home\})/\.hermes/|(?:\$hermes_home|\$\{hermes_home\})/)\.env\b`
	hermesConfig   = `(?:~/\.hermes/|(?:\$home|\$\{home\})/\.hermes/|(?:\$hermes_home|\$\{hermes_home\})/)config\.yaml\b`
	projectEnv     = "(?:(?:/|\\.{1,2}/)?(?:[^\\s/\"'`]+/)*\\.env(?:\\.[^/\\s\"'`]+)*)"
	projectConfig  = "(?:(?:/|\\.{1,2}/)?(?:[^\\s/\"'`]+/)*config\\.yaml)"
	shellRC        = `(?:~|\$home|\$\{home\})/\.(?:bashrc|zshrc|profile|bash_profile|zprofile)\b`
	credFiles      = `(?:~|\$home|\$\{home\})/\.(?:netrc|pgpass|npmrc|pypirc)\b`
	systemConfig   = `(?:/etc/|/private/(?:etc|var|tmp|home)/)`
	sensitive      = `(?:` + systemConfig + `|/dev/sd|` + sshPath + `|` + hermesEnv + `|` + hermesConfig + `|` + shellRC + `|` + credFiles + `)`
	userSensitive  = `(?:` + sshPath + `|` + shellRC + `|` + credFiles + `)`
	projSensitive  = `(?:` + projectEnv + `|` + projectConfig + `)`
	targetBoundary = `(?:[\s;&|<>"']|$)`
	shells         = `(?:bash|sh|zsh|ksh|dash)`
	blockDevice    = `/dev/(?:sd|nvme|hd|mmcblk|vd|xvd|md|dm-|loop|nbd)[a-z0-9]*|/dev/r?disk[0-9]+[a-z0-9]*|/dev/mapper/[^\s;&|<>()"']+|/dev/disk/by-(?:id|uuid|path|label|partuuid|partlabel)/[^\s;&|<>()"']+`
	// gitOpts are git's global options before the subcommand (-C dir, -c k=v, --no-pager …).
	gitOpts = `(?:(?:-c|-C)\s+\S+\s+|--?[a-z][a-z-]*(?:=\S*)?\s+)*`
	// cmdPos is hermes's command position for the fallback over an
	// unparsable string: the start, a newline, a separator, a backtick or
	// $(, a group's "{ ", then optional sudo/env/exec/nohup/setsid/time
	// wrappers ("{" alone would be brace expansion: echo {reboot,halt}).
	cmdPos = "(?:^|[\\n`;&|(]|\\{\\s|\\$\\()\\s*(?:sudo\\s+(?:-\\S+\\s+)*)?(?:env\\s+(?:\\w+=\\S*\\s+)*)?(?:(?:exec|nohup|setsid|time)\\s+)*\\s*"
)

// rmPath is hermes's destructive-path matcher for the rm floor: the path
// quoted on its own, or bare and followed by a terminator.
func rmPath(alt string) string {
	return `(?:["'](?:` + alt + `)["']|(?:` + alt + ")(?:\\s|$|[)`;|&]))"
}

const rmFlags = `rm\s+(-\S*\s+)*`

// Keys the package produces itself (besides hermes's pattern descriptions).
const (
	// KeyHidden is the finding of a command whose executed words the
	// check cannot determine: a program named by an expansion, code handed
	// to an interpreter or piped into a shell, a script the same command
	// writes, the options of a command whose options are dangerous.
	KeyHidden = "the command it runs is hidden by expansion"
	// KeyUnparsable is a command the shell parser cannot read.
	KeyUnparsable = "the shell parser cannot read this command"

	keyParserLimit  = "command parser limit exceeded"
	keyShellC       = "shell command via -c/-lc flag"
	keyInterpExec   = "script execution via -e/-c flag"
	keyHiddenTarget = "writes to a file whose name is hidden by expansion"
	keyForcePush    = "git force push (rewrites remote history)"
	keyDiscard      = "discards uncommitted work (git checkout/restore/switch -f/stash drop)"
	keyGitExec      = "git configuration or option that runs a program"
	keyGitMeta      = "write to git hooks or git configuration (.git/hooks, .git/config, ~/.gitconfig: runs at the next git command)"
	keySecretEdit   = "in-place edit of a secret file (.env, keys, credentials)"
	keyWorldWrite   = "world/other-writable permissions"
	keyGroupWrite   = "group-writable permissions"
	keyWipeOutside  = "destroys file contents outside the workspace (shred/wipefs/truncate)"
	keyWipeDevice   = "wipe raw block device"
	keyAwkShell     = "awk program runs a shell command (system()/pipe)"
	keySedExec      = "sed script runs a shell command (e)"
	keyProgramOpt   = "option that makes a program run another command"
	keyEnvCode      = "environment that makes programs load code (LD_PRELOAD, BASH_ENV, NODE_OPTIONS …)"
)

// aliases maps the approval keys of hermes's patterns that are spellings of
// one danger to the one key this package reports for it, so that an
// allowlist or session approval written with hermes's key still covers it.
var aliases = map[string]string{
	"recursive delete (long flag)":                                         "recursive delete",
	"recursive delete (flags after operands)":                              "recursive delete",
	"recursive world/other-writable (long flag)":                           keyWorldWrite,
	"recursive chown to root (long flag)":                                  "recursive chown to root",
	"force kill processes (killall -KILL)":                                 "force kill processes",
	"force kill processes (killall -s KILL)":                               "force kill processes",
	"kill process via backtick pgrep/pidof expansion (self-termination)":   "kill process via pgrep/pidof expansion (self-termination)",
	"in-place edit of sensitive credential/SSH/shell-rc path (long flag)":  "in-place edit of sensitive credential/SSH/shell-rc path",
	"in-place edit of sensitive credential/SSH/shell-rc path (perl/ruby)":  "in-place edit of sensitive credential/SSH/shell-rc path",
	"in-place edit of system config (long flag)":                           "in-place edit of system config",
	"in-place edit of Hermes config/env (long flag)":                       "in-place edit of Hermes config/env",
	"in-place edit of Hermes config/env (perl/ruby)":                       "in-place edit of Hermes config/env",
	"git force push short flag (rewrites remote history)":                  keyForcePush,
	"git branch force delete (long flags)":                                 "git branch force delete",
	"git branch force delete (long flags, force-first)":                    "git branch force delete",
	"sudo with combined-flag privilege escalation":                         "sudo with privilege flag (stdin/askpass/shell/list)",
	"raw block device wipe (shred/wipefs/blkdiscard/sgdisk)":               keyWipeDevice,
	"format filesystem":                                                    "format filesystem (mkfs)",
	"overwrite system file via tee":                                        "overwrite system file via redirection",
	"overwrite project env/config via tee":                                 "overwrite project env/config via redirection",
	"pipe xxd-decoded content to shell (possible command obfuscation)":     "pipe decoded content to shell (possible command obfuscation)",
	"pipe openssl-decoded content to shell (possible command obfuscation)": "pipe decoded content to shell (possible command obfuscation)",
	"pipe tr-transformed output to shell (possible command obfuscation)":   "pipe decoded content to shell (possible command obfuscation)",
}

// CanonicalKey returns the key this package reports for an approval key
// (hermes's key for a spelling of a danger maps to the danger's one key);
// other keys come back unchanged.
func CanonicalKey(key string) string {
	if c, ok := aliases[key]; ok {
		return c
	}
	return key
}

// hardlineRules are hermes's unconditional floor, in hermes's order: these never
// run, whatever the approvals.
func hardlineRules() []rule {
	return []rule{
		cmdRule("recursive delete of root filesystem", rmFlags+rmPath(`/(?:(?:\.\.?)?/)*(?:\.\.?)?\**|/ \*`)).need("rm"),
		cmdRule("recursive delete of system directory", rmFlags+rmPath(`/home|/home/\*|/root|/root/\*|/etc|/etc/\*|/usr|/usr/\*|/var|/var/\*|/bin|/bin/\*|/sbin|/sbin/\*|/boot|/boot/\*|/lib|/lib/\*`)).need("rm"),
		cmdRule("recursive delete of home directory", rmFlags+rmPath(`(?:~|\$\{?home\}?)(?:/?|/\*)?`)).need("rm"),
		cmdRule("format filesystem (mkfs)", `(?:mkfs(?:\.[a-z0-9]+)?|mke2fs)\b`).need("mk"),
		// hermes's newer floor: the tools that erase a whole device's
		// signatures or sectors, when pointed at one.
		cmdRule(keyWipeDevice, `(?:wipefs\b[^\n]*\s(?:-[a-z]*a[a-z]*|--all)\b|sgdisk\b[^\n]*\s(?:-z|--zap-all|-o|--clear)\b|blkdiscard\b|shred\b)[^\n]*\s["']?(?:`+blockDevice+`)`).need("/dev/"),
		cmdRule("dd to raw block device", `dd\b[^\n]*\bof=["']?(?:`+blockDevice+`)`).need("of="),
		redirRule("redirect to raw block device", `>\s*["']?(?:`+blockDevice+`)\b`).need("/dev/"),
		wholeRule("fork bomb", `:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`).need(":"),
		cmdRule("kill all processes", `kill\s+(-\S+\s+)*-1\b`).need("kill"),
		cmdRule("system shutdown/reboot", `(?:shutdown|reboot|halt|poweroff)\b`).need("shutdown", "reboot", "halt", "poweroff"),
		cmdRule("init 0/6 (shutdown/reboot)", `init\s+[06]\b`).need("init"),
		cmdRule("systemctl poweroff/reboot", `systemctl\s+(?:-\S+\s+)*(?:poweroff|reboot|halt|kexec)\b`).need("systemctl"),
		cmdRule("telinit 0/6 (shutdown/reboot)", `telinit\s+[06]\b`).need("telinit"),
	}
}

// dangerousRules are hermes's DANGEROUS_PATTERNS in hermes's order, then
// this package's own; a verdict lists its keys in this order.
func dangerousRules() []rule {
	return []rule{
		cmdRule("delete in root path", `rm\s+(-\S*\s+)*/`),
		cmdRule("recursive delete", `rm\s+-\S*r`),
		cmdRule("recursive delete", `rm\s+--recursive\b`),
		fnRule("recursive delete", rmFlagsAfterOperands, `\brm\s+[^\n"';|&]*\s(?:-[a-z]*r[a-z]*\b|--recursive\b)`),
		cmdRule("Windows cmd destructive delete", `cmd(?:\.exe)?\s+/(?:c|k)\s+.*\b(?:del|erase|rd|rmdir)\b`),
		cmdRule("Windows PowerShell destructive delete", `(?:powershell|pwsh)(?:\.exe)?\b(?:\s+-\S+)*\s+(?:-(?:command|c)\s+)?["']?(?:remove-item|rmdir|erase|del|rd|ri|rm)\b`),
		cmdRule("PowerShell encoded command execution", `(?:powershell|pwsh)(?:\.exe)?\b.*\s-(?:encodedcommand|enc|e)\b`),
		fnRule(keyWorldWrite, worldWritable, `\bchmod\s+(-\S*\s+)*(?:777|666|o\+[rwx]*w|a\+[rwx]*w)\b|\bchmod\s+--recursive\b.*(?:777|666|o\+[rwx]*w|a\+[rwx]*w)`),
		fnRule(keyGroupWrite, groupWritable, `\bchmod\s+(-\S*\s+)*(?:[0-7]?[0-7][2367][0-7]|g\+[rwx]*w)\b`),
		cmdRule("recursive chown to root", `chown\s+(-\S*)?r\s+root`),
		cmdRule("recursive chown to root", `chown\s+--recur[a-z]*\b.*root`),
		cmdRule("format filesystem (mkfs)", `mkfs\b`),
		cmdRule("disk copy", `dd\s+.*if=`),
		redirRule("write to block device", `>\s*(?:`+blockDevice+`)`),
		argsRule("SQL DROP", `\bdrop\s+(?:table|database)\b`).need("drop"),
		{key: "SQL DELETE without WHERE", kind: kindArgs, needles: []string{"delete"}},
		argsRule("SQL TRUNCATE", `\btruncate\s+(?:table)?\s*\w`).need("truncate"),
		redirRule("overwrite system config", `>\s*`+systemConfig),
		cmdRule("stop/restart system service", `systemctl\s+(-\S+\s+)*(?:stop|restart|disable|mask)\b`),
		cmdRule("kill all processes", `kill\s+-9\s+-1\b`),
		cmdRule("force kill processes", `pkill\s+-9\b`),
		cmdRule("force kill processes", `killall\s+(-\S*\s+)*-(?:9|kill|sigkill)\b`),
		cmdRule("force kill processes", `killall\s+(-\S*\s+)*-s\s+(?:kill|sigkill|9)\b`),
		cmdRule("kill processes by regex (killall -r)", `killall\s+(-\S*\s+)*-r\b`),
		wholeRule("fork bomb", `:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`).need(":"),
		wholeRule("pipe remote content to shell", `\b(?:curl|wget)\b.*\|\s*(?:[/\w]*/)?(?:ba|z|k|da)?sh(?:\s|$|-c)`).need("curl", "wget"),
		cmdRule("execute remote script via process substitution", shells+`\s+<\s*<?\s*\(\s*(?:curl|wget)\b`),
		cmdRule("execute remote content via command substitution", "(?:eval|source|\\.)\\s*(?:\\$\\(\\s*|`\\s*|<\\(\\s*)(?:curl|wget)\\b"),
		wholeRule("pipe decoded content to shell (possible command obfuscation)", `\b(?:base64|base32|base16)\s+(?:-d|--decode)\b.*\|\s*\b`+shells+`\b`).need("base"),
		wholeRule("pipe decoded content to shell (possible command obfuscation)", `\bxxd\s+-r\b.*\|\s*\b`+shells+`\b`).need("xxd"),
		wholeRule("pipe decoded content to shell (possible command obfuscation)", `\becho\b[^|]*\|\s*\btr\b[^|]*\|\s*\b`+shells+`\b`).need("tr"),
		wholeRule("pipe decoded content to shell (possible command obfuscation)", `\bopenssl\b.*\b(?:base64|enc)\b[^|]*\s+-d\b[^|]*\|\s*\b`+shells+`\b`).need("openssl"),
		cmdRule("overwrite system file via redirection", `tee\b.*["']?`+sensitive),
		redirRule("overwrite system file via redirection", `>>?\s*["']?`+sensitive),
		cmdRule("overwrite project env/config via redirection", `tee\b.*["']?`+projSensitive+`["']?`+targetBoundary),
		redirRule("overwrite project env/config via redirection", `>>?\s*["']?`+projSensitive+`["']?`+targetBoundary),
		cmdRule("xargs with rm", `xargs\s+.*\brm\b`),
		cmdRule("find -exec/-execdir rm", `find\b.*-exec(?:dir)?\s+(?:/\S*/)?rm\b`),
		cmdRule("find -delete", `find\b.*-delete\b`),
		cmdRule("stop/restart hermes gateway (kills running agents)", `hermes\s+(?:-{1,2}\S+(?:\s+\S+)?\s+)*gateway\s+(?:stop|restart)\b`),
		cmdRule("hermes update (restarts gateway, kills running agents)", `hermes\s+update\b`),
		cmdRule("docker compose restart/stop/kill/down (container lifecycle)", `docker(?:-compose|\s+compose)\s+(?:-{1,2}\S+(?:[=\s]\S+)?\s+)*(?:restart|stop|kill|down)\b`),
		cmdRule("docker restart/stop/kill (container lifecycle)", `docker\s+(?:-{1,2}\S+(?:[=\s]\S+)?\s+)*(?:restart|stop|kill)\b`),
		wholeRule("start gateway outside systemd (use 'systemctl --user restart hermes-gateway')", `gateway\s+run\b.*(?:&\s*$|&\s*;|\bdisown\b|\bsetsid\b)`).need("gateway"),
		cmdRule("start gateway outside systemd (use 'systemctl --user restart hermes-gateway')", `nohup\b.*gateway\s+run\b`),
		cmdRule("kill hermes/gateway process (self-termination)", `(?:pkill|killall)\b.*\b(?:hermes|gateway|cli\.py)\b`),
		cmdRule("kill process via pgrep/pidof expansion (self-termination)", `kill\b.*\$\(\s*(?:pgrep|pidof)\b`),
		cmdRule("kill process via pgrep/pidof expansion (self-termination)", "kill\\b.*`\\s*(?:pgrep|pidof)\\b"),
		cmdRule("stop/restart hermes launchd service (kills running agents)", `launchctl\s+(?:stop|kickstart|bootout|unload|kill|disable|remove)\b.*\b(?:hermes|ai\.hermes)\b`),
		cmdRule("copy/move file into system config path", `(?:cp|mv|install)\b.*\s`+systemConfig),
		cmdRule("overwrite project env/config file", `(?:cp|mv|install)\b.*\s["']?`+projSensitive+`["']?$`),
		cmdRule("copy/move file into sensitive credential/SSH/shell-rc path", `(?:cp|mv|install)\b.*\s["']?`+sensitive+`[^\s"']*["']?$`),
		cmdRule("in-place edit of sensitive credential/SSH/shell-rc path", `sed\s+-\S*i.*`+userSensitive),
		cmdRule("in-place edit of sensitive credential/SSH/shell-rc path", `sed\s+--in-place\b.*`+userSensitive),
		cmdRule("in-place edit of sensitive credential/SSH/shell-rc path", `(?:perl|ruby)\b.*(?:^|\s)-\S*i\b.*`+userSensitive),
		cmdRule("in-place edit of system config", `sed\s+-\S*i.*\s`+systemConfig),
		cmdRule("in-place edit of system config", `sed\s+--in-place\b.*\s`+systemConfig),
		cmdRule("in-place edit of Hermes config/env", `sed\s+-\S*i.*(?:`+hermesConfig+`|`+hermesEnv+`)`),
		cmdRule("in-place edit of Hermes config/env", `sed\s+--in-place\b.*(?:`+hermesConfig+`|`+hermesEnv+`)`),
		cmdRule("in-place edit of Hermes config/env", `(?:perl|ruby)\b.*(?:^|\s)-\S*i\b.*(?:`+hermesConfig+`|`+hermesEnv+`)`),
		cmdRule("shell execution via heredoc", shells+`\s+(?:-\S+\s+)*<<`),
		cmdRule("script execution via heredoc", `(?:python[23]?(?:\.\d+)?|perl|ruby|node)\s+(?:-\S+\s+)*<<`),
		cmdRule("git reset --hard (destroys uncommitted changes)", `git\s+`+gitOpts+`reset\b[^\n]*\s--h(?:a(?:r(?:d)?)?)?\b`),
		fnRule(keyForcePush, gitForcePush, `\bgit\s+`+gitOpts+`push\b.*(?:--forc[a-z]*\b|\s-f\b|--mirror\b|--delete\b|\s\+|\s:)`),
		cmdRule("git clean with force (deletes untracked files)", `git\s+`+gitOpts+`clean\s+(?:-\S+\s+)*-[a-z]*f`),
		fnRule("git branch force delete", gitBranchForceD, `\bgit\s+branch\s+-d\b`),
		cmdRule("git branch force delete", `git\s+`+gitOpts+`branch\b[^;|&\n]*?(?:-d\b|--delete\b)[^;|&\n]*?(?:-f\b|--force\b)`),
		cmdRule("git branch force delete", `git\s+`+gitOpts+`branch\b[^;|&\n]*?(?:-f\b|--force\b)[^;|&\n]*?(?:-d\b|--delete\b)`),
		wholeRule("chmod +x followed by immediate execution", `\bchmod\s+\+x\b.*[;&|]+\s*\./`).need("chmod"),
		fnRule("sudo with privilege flag (stdin/askpass/shell/list)", sudoPrivilegeFlag, `\bsudo\b[^;|&\n]*?\s+(?:-s\b|--st[a-z]*\b|-a\b|--a[a-z]*\b)`),
		fnRule("sudo with privilege flag (stdin/askpass/shell/list)", sudoCombinedFlag, `\bsudo\b[^;|&\n]*?\s+-[a-z]*[sa][a-z]*\b`),
		// hermes checks the inline-script flags structurally after every
		// pattern, so a more specific finding comes first.
		fnRule(keyShellC, shellDashC, `\b`+shells+`\s+-[a-z]*c(?:\s+|$)`),
		fnRule(keyInterpExec, interpreterExec, `\b(?:python[23]?|perl|ruby|node)\s+-[ec]\s+`),
		// This package's rules.
		fnRule(keyDiscard, gitDiscard, `\bgit\s+`+gitOpts+`(?:restore\b|checkout\b.*(?:\s--\s|\s\.(?:\s|$)|\s-f\b|--force\b)|switch\b.*(?:\s-f\b|--force\b|--discard-changes\b)|stash\s+(?:drop|clear)\b)`),
		fnRule(keyGitExec, gitRunsProgram, `\bgit\b.*(?:-c\s+\S*(?:alias\.|sshcommand|pager|hookspath|editor|fsmonitor)|--upload-pack|--receive-pack|\bconfig\b.*(?:alias\.|sshcommand|pager|hookspath|editor|fsmonitor))`),
		walkRule(keyGitMeta, `(?:^|[\s/"'=])\.git/(?:hooks/|config\b)`),
		fnRule(keySecretEdit, secretInPlace, `\b(?:sed\s+(?:-\S*i|--in-place)|(?:perl|ruby)\s+-\S*i)[^\n]*(?:\.env\b|id_rsa|id_ed25519|\.pem\b|\.key\b|credentials|\.netrc|\.npmrc|\.pypirc|\.pgpass)`),
		walkRule(keyWipeOutside, `\b(?:shred|wipefs|truncate)\b[^\n]*\s(?:/|~|\$home|\.\./)`),
		fnRule(keyAwkShell, awkRunsShell, `\b[gmn]?awk\b[^\n]*(?:system\s*\(|\|\s*getline|\|&|print[^\n]*\|\s*")`),
		fnRule(keySedExec, sedRunsShell, `\bsed\b[^\n]*(?:/e\b|;\s*e\s)`),
		fnRule(keyProgramOpt, programOption, `\b(?:rg\s[^\n]*--pre\b|sort\s[^\n]*--compress-program|tar\s[^\n]*(?:--to-command|--use-compress-program|--checkpoint-action)|rsync\s[^\n]*(?:\s-e\s|--rsh))`),
		walkRule(keyEnvCode, `\b(?:ld_preload|ld_audit|bash_env|node_options|perl5opt|rubyopt)=`),
		walkRule(keyHiddenTarget, ""),
		walkRule(KeyHidden, ""),
		walkRule(KeyUnparsable, ""),
	}
}

func cmdRule(key, body string) rule {
	prefix, _ := regexp.MustCompile(body).LiteralPrefix()
	return rule{key: key, kind: kindCmd, re: regexp.MustCompile(`^(?:` + body + `)`), loose: regexp.MustCompile(`(?s)\b(?:` + body + `)`), prefix: prefix}
}

func fnRule(key string, fn func(*view) bool, loose string) rule {
	return rule{key: key, kind: kindCmd, fn: fn, loose: regexp.MustCompile(`(?s)` + loose)}
}

func redirRule(key, body string) rule {
	re := regexp.MustCompile(body)
	return rule{key: key, kind: kindRedir, re: re, loose: re}
}

func argsRule(key, body string) rule {
	re := regexp.MustCompile(body)
	return rule{key: key, kind: kindArgs, re: re, loose: re}
}

func wholeRule(key, body string) rule {
	re := regexp.MustCompile(`(?s)` + body)
	return rule{key: key, kind: kindWhole, re: re, loose: re}
}

// walkRule is a rule the walk finds; loose, when given, is what the
// fallback over an unparsable string matches instead.
func walkRule(key, loose string) rule {
	r := rule{key: key, kind: kindWalk}
	if loose != "" {
		r.loose = regexp.MustCompile(`(?s)` + loose)
	}
	return r
}

// table is the rules, compiled at the first Check (not at start-up: the
// agent starts without paying for them, and so does every sandboxed
// command's helper). hardline are the floor's; dangerous ask first; keys
// are the verdict's keys in order (the floor's first), each once, and
// index maps a key to its place in keys.
type table struct {
	hardline, dangerous []rule
	keys                []string
	index               map[string]int
	hardKey             []int // hardline[i]'s place in keys
	dangKey             []int // dangerous[i]'s place in keys
	floor               int   // keys[:floor] are the floor's
}

var tableOnce = sync.OnceValue(func() *table {
	t := &table{hardline: hardlineRules(), dangerous: dangerousRules(), index: map[string]int{}}
	// The floor's command rules are anchored at hermes's command position
	// when they run over an unparsable string.
	for i := range t.hardline {
		if t.hardline[i].kind == kindCmd {
			body := strings.TrimSuffix(strings.TrimPrefix(t.hardline[i].re.String(), "^(?:"), ")")
			t.hardline[i].loose = regexp.MustCompile(cmdPos + `(?:` + body + `)`)
		}
	}
	place := func(key string) int {
		if i, ok := t.index[key]; ok {
			return i
		}
		t.index[key] = len(t.keys)
		t.keys = append(t.keys, key)
		return len(t.keys) - 1
	}
	for _, r := range t.hardline {
		t.hardKey = append(t.hardKey, place(r.key))
	}
	t.floor = len(t.keys)
	for _, r := range t.dangerous {
		t.dangKey = append(t.dangKey, place(r.key))
	}
	return t
})

// rules returns the compiled table.
func rules() *table { return tableOnce() }

// sqlDeleteNoWhere reports a DELETE FROM with no WHERE later on the same line.
func sqlDeleteNoWhere(s string) bool {
	for _, loc := range deleteFrom().FindAllStringIndex(s, -1) {
		rest := s[loc[1]:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i]
		}
		if !whereWord().MatchString(rest) {
			return true
		}
	}
	return false
}

var (
	deleteFrom = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bdelete\s+from\b`) })
	whereWord  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bwhere\b`) })
)

// matchString applies a non-command rule to s.
func (r *rule) matchString(s string) bool {
	if r.re == nil { // SQL DELETE without WHERE
		return sqlDeleteNoWhere(s)
	}
	return r.re.MatchString(s)
}

// matchLoose applies a rule's fallback form to a whole normalised string.
func (r *rule) matchLoose(s string) bool {
	if r.kind == kindWalk {
		return r.loose != nil && r.loose.MatchString(s)
	}
	if r.loose == nil {
		return sqlDeleteNoWhere(s)
	}
	return r.loose.MatchString(s)
}
