// Package search is the content search engine behind the search_files
// tool: a parallel, .gitignore-aware walk of a folder that searches file
// contents line by line for a regular expression, or file names for a glob,
// as ripgrep does, in process.
//
// A [Query] compiles once into a [Search]. The pattern is matched with RE2
// after a literal prefilter: a pattern without metacharacters, or the
// longest literal every match must contain, is found first by its rarest
// byte (bytes.IndexByte), and the expression runs only on the lines holding
// it. [Search.Run] walks a [Tree] with one goroutine, which owns the ignore
// rules, and searches the files it finds with a bounded pool of workers;
// it keeps only the files holding the first rows the caller will show (a
// top-k selection in path order), counts every hit, clips long lines, adds
// context lines, stops at a timeout with what it found, and stops at once
// when its context is done.
//
// The package knows nothing of tools or workspaces: its caller opens the
// folder (an [os.Root]) and decides, through the [Tree]'s functions, which
// files may be shown, how their paths are shown and which are binary.
package search
