#!/usr/bin/env python3
"""A subprocess HTML-to-Markdown converter for bench/webextract: Python's
standard html.parser, skipping scripts, styles, navigation, headers,
footers, asides and ad blocks, writing headings, paragraphs, lists, links,
inline code and code blocks as Markdown. It is the shape of what an agent
without an in-process extractor starts per page (html2text, markdownify and
readability's Python ports are not installed here)."""
import sys
from html.parser import HTMLParser

SKIP = {"script", "style", "nav", "header", "footer", "aside", "noscript", "head"}


class Converter(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip, self.pre, self.href = [], 0, False, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "") + " " + (a.get("id") or "")
        if tag in SKIP or (tag == "div" and ("ad" in cls.split() or "advertisement" in cls or "banner" in cls)):
            self.skip += 1
            return
        if self.skip:
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag == "p":
            self.out.append("\n\n")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag == "pre":
            self.pre = True
            self.out.append("\n\n```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag == "a":
            self.href = a.get("href")
            self.out.append("[")
        elif tag == "tr":
            self.out.append("\n|")

    def handle_endtag(self, tag):
        if tag in SKIP or (tag == "div" and self.skip):
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag == "pre":
            self.pre = False
            self.out.append("\n```")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag == "a":
            self.out.append("](%s)" % (self.href or ""))
        elif tag in ("td", "th"):
            self.out.append(" |")

    def handle_data(self, data):
        if self.skip:
            return
        self.out.append(data if self.pre else " ".join(data.split()) if data.strip() else "")


def main():
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    c = Converter()
    c.feed(raw.decode("utf-8", errors="replace"))
    c.close()
    sys.stdout.write("".join(c.out).strip() + "\n")


if __name__ == "__main__":
    main()
