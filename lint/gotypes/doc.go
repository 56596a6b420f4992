// Package gotypes is hermes-acp's Go type check of an edit: it type-checks
// the package of an edited Go file with go/types, before and after the
// edit, and reports the type errors the edit introduced — an undefined
// name, a wrong argument count, an unused import or variable, a type
// mismatch, a method that no longer satisfies an interface — in the edited
// file and in the other files of its package. It sits next to package lint,
// which stays pure (bytes in, diagnostics out): this package needs the Go
// toolchain and reads the disk.
//
// # What is checked
//
// The package is the edited file's directory as the go command builds it
// for the environment ([Options.Env]: GOOS, GOARCH, build tags in GOFLAGS,
// CGO_ENABLED), in the module (or go.work workspace) that holds the
// directory: its files and in-package tests as one package, and its
// external tests (package x_test) against it. Files excluded by build
// constraints are not checked; cgo files are, with import "C" faked
// (go/types FakeImportC), so that references to C are not errors. An
// [Edit] lays the new (or old) contents of one or more files of the
// directory over the disk; the go command learns of them through an
// -overlay when their build constraints or package clause are new.
//
// # Only what the edit introduced
//
// The errors after the edit minus those before it: an error after is
// matched with one before in the same file by its message and its line,
// mapped through a line diff of the file's two versions, or, on a line the
// edit changed, by its message with an error on a changed line before. So
// the errors of a half-written package never show as new, and an error the
// edit caused in another file (a renamed function still called there) is
// introduced there, at its position.
//
// # Loading, and why this way
//
// Dependencies are type-checked from their export data, which `go list
// -export -deps` builds (or finds in the build cache) and gcexportdata
// reads; the package itself is type-checked from source. A [Checker] keeps
// per module the dependencies' export data locations and the type
// information read from them, the parsed files of the package directories
// it checked and the errors of the last states it checked, so that after
// the first edit in a package the check of a one-line edit parses one file
// and type-checks the package twice (the state before the edit usually
// being the last state checked, which is remembered), without running the
// go command at all. golang.org/x/tools/go/packages does the same work
// per call but runs go list each time and rebuilds every dependency's type
// information; measured on a 50-file package with the standard library
// and one third-party dependency (docs/benchmarks.md, "Go type check"),
// that costs about two go list runs per edit where this package needs
// none, so this package drives go list itself.
//
// # Never downloading
//
// The go command runs with GOPROXY=off and -mod=readonly (-mod=vendor for
// a module that vendors): the module cache is all it reads. A dependency
// that is not there cannot be imported, which go/types reports where it is
// imported ("could not import …"), before and after the edit alike.
//
// # When the check is skipped
//
// No go command, a directory outside any module, a go.mod or go.work the
// go command rejects, a dependency that needs cgo which cannot be built,
// export data this build cannot read (a newer toolchain's), a package
// larger than [Options.MaxPackageBytes], dependencies whose type
// information would exceed [Options.MaxMemory]: the Result is skipped with
// the reason, and only the syntax lint applies.
//
// # Budgets
//
// Each run of the go command is bounded by [Options.LoadTimeout] and
// killed, with the compilers it started, when its check is cancelled —
// except the run that loads dependencies, which a newer check of the
// module needs as much as the cancelled one: it goes on, and
// [Checker.Close] stops it. The
// memory of the type information and parsed files is estimated per module
// and bounded by [Options.MaxMemory] over all modules, the module used
// longest ago being dropped first; at most eight modules are kept.
package gotypes
