// Package testpdf builds PDF files for tests: a minimal one that shows a
// line of text, and decompression bombs that are a few kilobytes on disk
// and gigabytes once their content streams are inflated.
package testpdf

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"strings"
)

// Minimal returns a one-page PDF that shows text in Helvetica.
func Minimal(text string) []byte {
	stream := fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
	return build([]string{fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream)}, "4 0 R")
}

// Bomb kinds.
const (
	// Text: every MiB inflates to text operators ("(AAAA…) Tj"), so a
	// decoder produces text as fast as it inflates.
	Text = "text"
	// Token: one literal string that never closes, so a decoder holds
	// the whole inflated content as a single token in memory.
	Token = "token"
	// Ops: operators that show nothing ("q Q"), so a decoder inflates and
	// interprets for as long as it is let, with no output.
	Ops = "ops"
)

// Bomb returns a one-page PDF whose content is unit × copies MiB once
// inflated, of the kind given: one FlateDecode stream of unit MiB
// referenced copies times from the page's /Contents array (the PDF is
// about 3 KiB a MiB of unit, plus six bytes a reference).
func Bomb(kind string, unit, copies int) []byte {
	var pattern string
	switch kind {
	case Text:
		pattern = "(" + strings.Repeat("A", 58) + ") Tj\n"
	case Token:
		pattern = "AAAAAAAAAAAAAAAA"
	case Ops:
		pattern = "q Q q Q q Q q Q\n"
	default:
		panic("testpdf: unknown bomb kind " + kind)
	}
	mib := bytes.Repeat([]byte(pattern), 1<<20/len(pattern))
	z := zlibRepeat(mib, unit)
	head := "BT /F1 12 Tf\n"
	if kind == Token {
		head = "BT /F1 12 Tf ("
	}
	streams := []string{
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(head), head),
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(z), z),
	}
	var refs strings.Builder
	refs.WriteString("[4 0 R")
	for range copies {
		refs.WriteString(" 5 0 R")
	}
	refs.WriteString("]")
	return build(streams, refs.String())
}

// zlibRepeat returns the zlib stream of chunk repeated n times without
// compressing n copies (a gigabyte takes minutes under the race
// detector): chunk is compressed once, ended with a sync flush so that it
// is byte-aligned and refers to nothing before it, and that block
// sequence is repeated; then the final block and the checksum of the
// whole, combined from the chunk's.
func zlibRepeat(chunk []byte, n int) []byte {
	var one bytes.Buffer
	fw, _ := flate.NewWriter(&one, flate.BestCompression)
	fw.Write(chunk)
	fw.Flush()
	var end bytes.Buffer
	fe, _ := flate.NewWriter(&end, flate.BestCompression)
	fe.Close()
	out := []byte{0x78, 0xda} // zlib header: deflate, 32 KiB window, best compression
	out = append(out, bytes.Repeat(one.Bytes(), n)...)
	out = append(out, end.Bytes()...)
	a, sum := adler32.Checksum(chunk), uint32(1)
	for range n {
		sum = adler32Combine(sum, a, int64(len(chunk)))
	}
	return binary.BigEndian.AppendUint32(out, sum)
}

// adler32Combine is zlib's adler32_combine: the Adler-32 of A followed by
// B from a1 (of A), a2 (of B) and B's length.
func adler32Combine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := rem * sum1 % base
	sum1 += a2&0xffff + base - 1
	sum2 += a1>>16 + a2>>16 + base - rem
	for sum1 >= base {
		sum1 -= base
	}
	for sum2 >= base {
		sum2 -= base
	}
	return sum1 | sum2<<16
}

// build writes a one-page PDF with the given content stream objects
// (numbered from 4; the font is the object after them) and /Contents.
func build(streams []string, contents string) []byte {
	font := len(streams) + 4
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %s /Resources << /Font << /F1 %d 0 R >> >> >>", contents, font),
	}
	objs = append(objs, streams...)
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
