package terminal

import (
	"regexp"
	"strings"
	"sync"
)

// The secret patterns are hermes-agent's (agent/redact.py): known key
// prefixes, authorization headers, API-key headers, private key blocks,
// connection-string passwords, bare tokens in URLs, JWTs, and, for the
// output of environment dumps (env, printenv, set, export, declare), any
// KEY=value whose name says it is secret.

// prefixPatterns are the token shapes that start with a vendor prefix.
var prefixPatterns = []string{
	`sk-[A-Za-z0-9_-](?:\.?[A-Za-z0-9_-]){9,}`,
	`ghp_[A-Za-z0-9]{10,}`,
	`github_pat_[A-Za-z0-9_]{10,}`,
	`gho_[A-Za-z0-9]{10,}`,
	`ghu_[A-Za-z0-9]{10,}`,
	`ghs_[A-Za-z0-9]{10,}`,
	`ghr_[A-Za-z0-9]{10,}`,
	`xapp-\d+-[A-Za-z0-9-]{10,}`,
	`xox[baprs]-[A-Za-z0-9-]{10,}`,
	`AIza[A-Za-z0-9_-]{30,}`,
	`pplx-[A-Za-z0-9]{10,}`,
	`fal_[A-Za-z0-9_-]{10,}`,
	`fc-[A-Za-z0-9]{10,}`,
	`bb_live_[A-Za-z0-9_-]{10,}`,
	`gAAAA[A-Za-z0-9_=-]{20,}`,
	`AKIA[A-Z0-9]{16}`,
	`sk_live_[A-Za-z0-9]{10,}`,
	`sk_test_[A-Za-z0-9]{10,}`,
	`rk_live_[A-Za-z0-9]{10,}`,
	`SG\.[A-Za-z0-9_-]{10,}`,
	`hf_[A-Za-z0-9]{10,}`,
	`r8_[A-Za-z0-9]{10,}`,
	`npm_[A-Za-z0-9]{10,}`,
	`pypi-[A-Za-z0-9_-]{10,}`,
	`dop_v1_[A-Za-z0-9]{10,}`,
	`doo_v1_[A-Za-z0-9]{10,}`,
	`am_(?:org_)?[A-Za-z0-9]{20,}`,
	`sk_[A-Za-z0-9_]{10,}`,
	`tvly-[A-Za-z0-9]{10,}`,
	`exa_[A-Za-z0-9]{10,}`,
	`gsk_[A-Za-z0-9]{10,}`,
	`syt_[A-Za-z0-9]{10,}`,
	`hsk-[A-Za-z0-9]{10,}`,
	`mem0_[A-Za-z0-9]{10,}`,
	`brv_[A-Za-z0-9]{10,}`,
	`xai-[A-Za-z0-9]{30,}`,
	`ntn_[A-Za-z0-9]{10,}`,
	`fw-[A-Za-z0-9]{30,}`,
	`fw_[A-Za-z0-9]{30,}`,
	`fpk_[A-Za-z0-9]{30,}`,
	`glpat-[A-Za-z0-9_\-]{10,}`,
	`gloas-[A-Za-z0-9_\-]{10,}`,
	`gldt-[A-Za-z0-9_\-]{10,}`,
	`glrt-[A-Za-z0-9_.\-]{10,}`,
	`glrtr-[A-Za-z0-9_.\-]{10,}`,
	`glcbt-[A-Za-z0-9_\-]{10,}`,
	`glptt-[A-Za-z0-9_\-]{10,}`,
	`glft-[A-Za-z0-9_\-]{10,}`,
	`glimt-[A-Za-z0-9_\-]{10,}`,
	`glagent-[A-Za-z0-9_\-]{10,}`,
	`glsoat-[A-Za-z0-9_\-]{10,}`,
	`glffct-[A-Za-z0-9_\-]{10,}`,
	`glwt-[A-Za-z0-9_\-]{10,}`,
	`GR1348941[A-Za-z0-9_\-]{10,}`,
	`pk-lf-[A-Za-z0-9\-]{8,}`,
}

var (
	// prefixRE matches a prefixed token not glued to a word before it.
	// Go's regexp has no lookaround: the character before is group 1
	// and the end is checked by the caller.
	prefixRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[^A-Za-z0-9_-])(` + strings.Join(prefixPatterns, "|") + `)`)
	})

	authHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:Proxy-)?Authorization:\s*)([A-Za-z][\w.+-]*\s+)?([^\s"']+)`)
	})
	secretHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)\s*:\s*)(\S+)`)
	})
	privateKeyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----`)
	})
	dbConnRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^:\s]+:)([^@\s]+)(@)`)
	})
	urlTokenRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:https?|wss?|git|ssh|ftp|ftps|sftp)://)([^\s:@/]{8,})(@[^\s]+)`)
	})
	jwtRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}`) })
	telegramRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^0-9])(bot)?(\d{8,}):([-A-Za-z0-9_]{30,})`) })
	// envAssignRE is hermes's uppercase KEY=value with a secret-ish name.
	envAssignRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Z0-9_]{0,50}(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PW|CREDENTIAL|AUTH)[A-Z0-9_]{0,50})\s*=\s*(['"]?)(\S+)`)
	})
	keyWordRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:api|auth|access|refresh|session|secret)[ _.\\-]?(?:key|token)|token|secret|passwd|password|pass|pw|credential|auth|key`)
	})
)

// mask hides a token as hermes's logs do: short ones entirely, longer
// ones keeping their first 6 and last 4 characters.
func mask(tok string) string {
	if len(tok) < 18 {
		return "***"
	}
	return tok[:6] + "..." + tok[len(tok)-4:]
}

// Redact hides secrets in the output of command, as hermes does for
// terminal output: vendor-prefixed keys, authorization and API-key
// headers, private key blocks, passwords in connection strings, tokens in
// URLs and JWTs always; KEY=value assignments with secret-ish names only
// when command dumps the environment (elsewhere they are usually source
// code such as MAX_TOKENS=100).
func Redact(output, command string) string {
	if output == "" {
		return output
	}
	s := prefixRE().ReplaceAllStringFunc(output, func(m string) string {
		sub := prefixRE().FindStringSubmatch(m)
		return sub[1] + mask(sub[2])
	})
	if isEnvDump(command) && strings.Contains(s, "=") {
		s = envAssignRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := envAssignRE().FindStringSubmatch(m)
			key, quote, val := sub[1], sub[2], strings.TrimSuffix(sub[3], sub[2])
			if !secretKey(key) || val == "***" || strings.HasPrefix(val, "$") {
				return m
			}
			return key + "=" + quote + mask(val) + quote
		})
	}
	if strings.Contains(strings.ToLower(s), "authorization") {
		s = authHeaderRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := authHeaderRE().FindStringSubmatch(m)
			return sub[1] + sub[2] + mask(sub[3])
		})
	}
	if strings.Contains(s, ":") {
		s = secretHeaderRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := secretHeaderRE().FindStringSubmatch(m)
			return sub[1] + mask(sub[2])
		})
		s = telegramRE().ReplaceAllString(s, "${1}${2}${3}:***")
	}
	if strings.Contains(s, "BEGIN") {
		s = privateKeyRE().ReplaceAllString(s, "[REDACTED PRIVATE KEY]")
	}
	if strings.Contains(s, "://") {
		s = dbConnRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := dbConnRE().FindStringSubmatch(m)
			if strings.HasPrefix(sub[2], "{") && strings.HasSuffix(sub[2], "}") {
				return m // a template such as f"postgresql://{user}:{pw}@{host}"
			}
			return sub[1] + "***" + sub[3]
		})
		s = urlTokenRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := urlTokenRE().FindStringSubmatch(m)
			return sub[1] + mask(sub[2]) + sub[3]
		})
	}
	if strings.Contains(s, "eyJ") {
		s = jwtRE().ReplaceAllStringFunc(s, mask)
	}
	return s
}

// secretKey reports whether an assignment's name holds a secret keyword
// at a word boundary (API_KEY, DB_PW; not KEYBOARD).
func secretKey(key string) bool {
	for _, loc := range keyWordRE().FindAllStringIndex(key, -1) {
		start, end := loc[0], loc[1]
		before := start == 0 || !isLetter(key[start-1])
		after := end == len(key) || !isLetter(key[end]) || (key[end] == 'S' || key[end] == 's') && (end+1 == len(key) || !isLetter(key[end+1]))
		if before && after {
			return true
		}
	}
	return false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// isEnvDump reports whether a segment of command starts with a command
// that prints the environment.
func isEnvDump(command string) bool {
	for _, seg := range commandSegments(command) {
		f := strings.Fields(seg)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "env", "printenv", "set", "export", "declare":
			return true
		}
	}
	return false
}

// commandSegments splits command at unquoted |, ; and &.
func commandSegments(command string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	for _, r := range command {
		switch {
		case quote != 0:
			b.WriteRune(r)
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
			b.WriteRune(r)
		case r == '|' || r == ';' || r == '&':
			if s := strings.TrimSpace(b.String()); s != "" {
				out = append(out, s)
			}
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		out = append(out, s)
	}
	return out
}
