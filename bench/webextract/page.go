package main

import (
	"fmt"
	"strings"
)

// pageSize is the size of the benchmark's page: 1 MB.
const pageSize = 1 << 20

// articlePage returns a deterministic HTML article page of about size
// bytes, shaped like a long documentation or blog page: a header with
// navigation, an ad block, the article (headings, paragraphs with links and
// inline code, code blocks, lists, a table every few sections), a sidebar
// and a footer, and scripts and styles in the head. Its last paragraph
// holds the marker "END-OF-ARTICLE".
func articlePage(size int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>The Go memory model, explained at length | Example Docs</title>
<style>body{font:16px/1.5 sans-serif}.ad{background:#fee}.nav a{margin:0 1em}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
</head><body><header class="site-header"><nav class="nav"><a href="/">Home</a><a href="/docs">Docs</a><a href="/blog">Blog</a><a href="/community">Community</a><a href="/download">Download</a></nav></header>
<div class="ad banner" id="ad-top"><a href="https://ads.example.net/c?id=42">Sponsored: ship faster with ExampleCloud</a></div>
<main><article><h1>The Go memory model, explained at length</h1><p class="byline">By A. Gopher · 42 min read</p>
`)
	for s := 0; b.Len() < size-4000; s++ {
		fmt.Fprintf(&b, "<h2 id=\"s%d\">Section %d: happens-before, part %d</h2>\n", s, s, s)
		for p := 0; p < 6; p++ {
			fmt.Fprintf(&b, "<p>Paragraph %d.%d. A send on a channel is synchronized before the completion of the corresponding receive from that channel; "+
				"see <a href=\"/ref/mem#s%d\">the memory model</a> and <code>sync.Mutex</code>. Programs that modify data being simultaneously accessed by "+
				"multiple goroutines must serialize such access, with <em>channel operations</em> or other <strong>synchronization primitives</strong>.</p>\n", s, p, s)
		}
		fmt.Fprintf(&b, "<pre><code>func worker%d(jobs &lt;-chan int, results chan&lt;- int) {\n\tfor j := range jobs {\n\t\tresults &lt;- j * %d\n\t}\n}\n</code></pre>\n", s, s)
		b.WriteString("<ul><li>Use channels to hand over ownership.</li><li>Use a mutex to guard shared state.</li><li>Use sync/atomic for counters.</li></ul>\n")
		if s%4 == 0 {
			fmt.Fprintf(&b, "<table><tr><th>Operation</th><th>Cost %d</th></tr><tr><td>send</td><td>%d ns</td></tr><tr><td>receive</td><td>%d ns</td></tr></table>\n", s, 50+s%7, 40+s%5)
		}
	}
	b.WriteString(`<p>That is all: END-OF-ARTICLE.</p></article></main>
<aside class="sidebar"><div class="advertisement">Try ExampleHosting free for 30 days</div><h3>Related</h3><ul><li><a href="/a">Generics</a></li><li><a href="/b">Iterators</a></li></ul></aside>
<footer class="site-footer"><p>© 2026 Example Docs · Privacy · Terms · Cookie settings</p></footer>
<script src="/static/app.js"></script></body></html>
`)
	return []byte(b.String())
}
