package browser

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fakeExe writes an executable file called name into dir.
func fakeExe(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Find caches what it found while the file exists; a removed browser is
// searched for again.
func TestFindCachesWhileTheExecutableExists(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	exe := fakeExe(t, dir, "hermes-test-browser-a")
	got, err := Find("hermes-test-browser-a")
	if err != nil || got != exe {
		t.Fatalf("Find = %q, %v; want %q", got, err, exe)
	}
	if got, err := Find("hermes-test-browser-a"); err != nil || got != exe {
		t.Fatalf("Find again = %q, %v; want %q", got, err, exe)
	}
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	if got, err := Find("hermes-test-browser-a"); err == nil {
		t.Fatalf("Find after the browser was removed = %q, want an error", got)
	}
}

// "Not found" is remembered for notFoundTTL, then searched again; a
// different PATH is a different question.
func TestFindRemembersNotFoundForAWhile(t *testing.T) {
	old := notFoundTTL
	t.Cleanup(func() { notFoundTTL = old })
	dir := t.TempDir()
	t.Setenv("PATH", dir)

	notFoundTTL = time.Hour
	if _, err := Find("hermes-test-browser-b"); err == nil {
		t.Fatal("Find of a missing browser succeeded")
	}
	exe := fakeExe(t, dir, "hermes-test-browser-b")
	if got, err := Find("hermes-test-browser-b"); err == nil {
		t.Fatalf("Find within the not-found time = %q, want the remembered error", got)
	}
	other := t.TempDir()
	t.Setenv("PATH", other+string(os.PathListSeparator)+dir)
	if got, err := Find("hermes-test-browser-b"); err != nil || got != exe {
		t.Fatalf("Find with another PATH = %q, %v; want %q", got, err, exe)
	}

	t.Setenv("PATH", dir)
	notFoundTTL = 0
	if got, err := Find("hermes-test-browser-b"); err != nil || got != exe {
		t.Fatalf("Find after the not-found time = %q, %v; want %q", got, err, exe)
	}
}
