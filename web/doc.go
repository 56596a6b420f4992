// Package web fetches pages and searches the web for the agent's tools: the
// URL safety policy every fetch goes through ([Policy]: only http and https,
// no private, loopback, link-local or cloud-metadata addresses unless
// allowed, checked on the resolved address at dial time and on every
// redirect), a fetcher with size, time and redirect limits that decodes the
// page's charset, keeps its main content and converts it to Markdown
// ([Fetcher]), and the search and extraction backends hermes supports
// (SearXNG, Brave, Tavily, Exa, Firecrawl).
//
// The package knows nothing of tools or of the protocol; the tools package
// and the browser and vision code use it.
package web
