// Command webextract writes the 1 MB article page of the web_extract
// benchmark (bench/webextract/run.sh) to a file, for the subprocess
// converters to read.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("write", "", "write the page to this file")
	size := flag.Int("size", pageSize, "page size in bytes")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: webextract -write FILE [-size N]")
		os.Exit(2)
	}
	if err := os.WriteFile(*out, articlePage(*size), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
