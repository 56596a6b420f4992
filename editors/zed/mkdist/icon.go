package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The ACP registry's icon rules (agentclientprotocol/registry,
// .github/workflows/build_registry.py validate_icon): a square 16×16 SVG
// (width/height, else the viewBox) that draws in currentColor, every fill
// and stroke (attribute or style) being currentColor, none or inherit. On
// top of those, ours: no comments, no <style> sheets and no other colour
// attributes (stop-color, flood-color, lighting-color, color), so that the
// icon follows the editor's theme whatever reads it.

// iconSize is the registry's preferred (and our required) icon size.
const iconSize = 16

var (
	iconWidth   = regexp.MustCompile(`<svg[^>]*\swidth=["'](\d+)`)
	iconHeight  = regexp.MustCompile(`<svg[^>]*\sheight=["'](\d+)`)
	iconViewBox = regexp.MustCompile(`viewBox=["'][\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)`)
	iconPaint   = regexp.MustCompile(`(?i)\b(fill|stroke)\s*=\s*["']([^"']+)["']`)
	iconStyle   = regexp.MustCompile(`(?i)\bstyle\s*=\s*["']([^"']+)["']`)
	stylePaint  = regexp.MustCompile(`(?i)\b(fill|stroke)\s*:\s*([^;]+)`)
	iconColour  = regexp.MustCompile(`(?i)\b(stop-color|flood-color|lighting-color|color)\s*[=:]\s*["']?([^"';\s>]+)`)
)

// paintAllowed are the fill and stroke values the registry accepts.
var paintAllowed = map[string]bool{"currentcolor": true, "none": true, "inherit": true}

// checkIcon returns every rule the SVG text svg breaks (nil: none).
func checkIcon(svg string) []string {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	w, h := iconWidth.FindStringSubmatch(svg), iconHeight.FindStringSubmatch(svg)
	var width, height float64
	switch vb := iconViewBox.FindStringSubmatch(svg); {
	case w != nil && h != nil:
		width, _ = strconv.ParseFloat(w[1], 64)
		height, _ = strconv.ParseFloat(h[1], 64)
	case vb != nil:
		width, _ = strconv.ParseFloat(vb[1], 64)
		height, _ = strconv.ParseFloat(vb[2], 64)
	default:
		bad("no width/height attributes and no viewBox")
	}
	if (w != nil && h != nil) || iconViewBox.MatchString(svg) {
		if width != iconSize || height != iconSize {
			bad("the icon is %gx%g, want %dx%d", width, height, iconSize, iconSize)
		}
	}
	for _, m := range iconPaint.FindAllStringSubmatch(svg, -1) {
		if !paintAllowed[strings.ToLower(strings.TrimSpace(m[2]))] {
			bad("fixed %s=%q (use currentColor or none)", strings.ToLower(m[1]), m[2])
		}
	}
	for _, st := range iconStyle.FindAllStringSubmatch(svg, -1) {
		for _, m := range stylePaint.FindAllStringSubmatch(st[1], -1) {
			if !paintAllowed[strings.ToLower(strings.TrimSpace(m[2]))] {
				bad("fixed style %s: %s (use currentColor or none)", strings.ToLower(m[1]), strings.TrimSpace(m[2]))
			}
		}
	}
	for _, m := range iconColour.FindAllStringSubmatch(svg, -1) {
		if v := strings.ToLower(m[2]); v != "currentcolor" && v != "inherit" {
			bad("fixed %s %q", strings.ToLower(m[1]), m[2])
		}
	}
	if !strings.Contains(strings.ToLower(svg), "currentcolor") {
		bad("the icon does not use currentColor")
	}
	if strings.Contains(svg, "<!--") {
		bad("the icon has a comment")
	}
	if strings.Contains(strings.ToLower(svg), "<style") {
		bad("the icon has a <style> sheet")
	}
	return problems
}
