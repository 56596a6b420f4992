package main

import (
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/web"
)

// TestExtractArticle checks what the benchmark measures: the 1 MB page's
// article, whole, as Markdown, without the page's navigation, ads and
// scripts.
func TestExtractArticle(t *testing.T) {
	page := articlePage(pageSize)
	if n := len(page); n < pageSize-8000 || n > pageSize+8000 {
		t.Fatalf("page is %d bytes, want about 1 MB", n)
	}
	p, err := web.Extract("https://docs.example/mem", page, "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Section 0: happens-before", "END-OF-ARTICLE", "```\nfunc worker3(", "[the memory model](https://docs.example/ref/mem#s1)"} {
		if !strings.Contains(p.Content, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	for _, junk := range []string{"ExampleCloud", "ExampleHosting", "gtag", "Cookie settings"} {
		if strings.Contains(p.Content, junk) {
			t.Errorf("Markdown keeps %q", junk)
		}
	}
}

// BenchmarkExtract1MB is web_extract's in-process work on a 1 MB article
// page once it is downloaded: charset detection, parsing, readability,
// Markdown.
func BenchmarkExtract1MB(b *testing.B) {
	page := articlePage(pageSize)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := web.Extract("https://docs.example/mem", page, "text/html; charset=utf-8"); err != nil {
			b.Fatal(err)
		}
	}
}
