package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/web"
)

// webFileConfig is the web section of config.yaml (hermes's keys, plus
// hermes-acp's allow_private_urls and extract_summarize).
type webFileConfig struct {
	Backend          string `yaml:"backend"`
	SearchBackend    string `yaml:"search_backend"`
	ExtractBackend   string `yaml:"extract_backend"`
	ExtractCharLimit int    `yaml:"extract_char_limit"`
	ExtractSummarize *bool  `yaml:"extract_summarize"`
	AllowPrivateURLs bool   `yaml:"allow_private_urls"`
	// Deny is web.deny: address ranges, addresses, hosts and *.domains
	// refused for the web tools, vision and the browser.
	Deny []string `yaml:"deny"`
}

// Web is the web tools' configuration, resolved.
type Web struct {
	Backends     web.Config
	CharLimit    int
	NoSummarize  bool
	AllowPrivate bool
	Deny         web.DenyList // web.deny
	Aux          AuxModel     // auxiliary.web_extract
}

// webSettings resolves the web section; env reads the environment and
// $HERMES_HOME/.env (the backends' credentials live there in hermes).
func webSettings(c *Config, fc *fileConfig, env func(string) string) {
	w := fc.Web
	c.Web = Web{
		Backends: web.Config{
			Backend: w.Backend, SearchBackend: w.SearchBackend, ExtractBackend: w.ExtractBackend,
			Getenv: env,
		},
		NoSummarize:  w.ExtractSummarize != nil && !*w.ExtractSummarize,
		AllowPrivate: w.AllowPrivateURLs,
		Aux:          fc.Auxiliary["web_extract"],
	}
	switch v := strings.ToLower(env("HERMES_ALLOW_PRIVATE_URLS")); v {
	case "1", "true", "yes":
		c.Web.AllowPrivate = true
	case "0", "false", "no":
		c.Web.AllowPrivate = false
	}
	deny, err := web.ParseDeny(w.Deny)
	if err != nil {
		c.problem(err.Error() + "; those entries are ignored, the others apply")
	}
	c.Web.Deny = deny
	switch n := w.ExtractCharLimit; {
	case n == 0:
	case n < 2000:
		c.problem(fmt.Sprintf("web.extract_char_limit: %d is below the minimum of 2000 characters; using 2000", n))
		c.Web.CharLimit = 2000
	default:
		c.Web.CharLimit = n
	}
	if _, err := c.Web.Backends.ExtractBackendName(); err != nil {
		c.problem(err.Error() + "; web_extract will fail until it is fixed")
	}
	if _, err := c.Web.Backends.SearchBackendName(); err != nil && !errors.Is(err, web.ErrNoSearchBackend) {
		c.problem(err.Error() + "; web_search is not offered")
	}
}

// Policy is the URL policy of the web tools and vision.
func (w Web) Policy() *web.Policy {
	return &web.Policy{AllowPrivate: w.AllowPrivate, Deny: w.Deny}
}

// BrowserPolicy is the URL policy of every request of the browser: the web
// tools' rules (web.deny included) except that loopback is allowed (local
// dev servers are the main use in an editor) and browser.allow_private_urls
// widens it to private addresses.
func (c Config) BrowserPolicy() *web.Policy {
	return &web.Policy{AllowLoopback: true, AllowPrivate: c.BrowserAllowPrivate, Setting: "browser.allow_private_urls", Deny: c.Web.Deny}
}
