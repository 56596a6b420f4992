package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testDocs stand for the repository's LICENSE and NOTICE.
var testDocs = map[string][]byte{"LICENSE": []byte("MIT License\n"), "NOTICE": []byte("hermes-acp\n")}

// fakeRelease packs placeholder binaries for the six targets into out and
// writes the manifests into manifests, as `mkdist build` does after
// compiling.
func fakeRelease(t *testing.T) (out, manifests string) {
	t.Helper()
	out, manifests = t.TempDir(), t.TempDir()
	icon, err := os.ReadFile("../icon.svg")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(manifests, "icon.svg"), icon, 0o644); err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, tg := range targets {
		sum, err := writeArchive(filepath.Join(out, tg.archive("1.2.3")), tg, []byte("binary for "+tg.Name), testDocs)
		if err != nil {
			t.Fatal(err)
		}
		sums[tg.archive("1.2.3")] = sum
	}
	if err := writeRelease(out, manifests, "1.2.3", "https://example.invalid/rel", sums); err != nil {
		t.Fatal(err)
	}
	return out, manifests
}

func TestManifestsNameEveryArchiveWithItsChecksum(t *testing.T) {
	out, manifests := fakeRelease(t)
	if err := check(out, manifests, checkOptions{}); err != nil {
		t.Fatalf("check of a fresh release: %v", err)
	}
	toml, err := os.ReadFile(filepath.Join(manifests, "extension.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[agent_servers.hermes]",
		"[agent_servers.hermes.targets.linux-x86_64]",
		`archive = "https://example.invalid/rel/v1.2.3/hermes-acp-1.2.3-windows-aarch64.zip"`,
		`cmd = "./hermes-acp.exe"`,
	} {
		if !strings.Contains(string(toml), want) {
			t.Errorf("extension.toml lacks %q:\n%s", want, toml)
		}
	}
	ext, err := parseExtension(string(toml))
	if err != nil {
		t.Fatal(err)
	}
	if len(ext.targets) != 6 || ext.version != "1.2.3" {
		t.Errorf("extension.toml: version %q, %d targets; want 1.2.3 and 6", ext.version, len(ext.targets))
	}
}

func TestArchivesAreReproducible(t *testing.T) {
	dir := t.TempDir()
	for _, tg := range []target{targets[3], targets[5]} {
		a, err := writeArchive(filepath.Join(dir, "a"), tg, []byte("same bytes"), testDocs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := writeArchive(filepath.Join(dir, "b"), tg, []byte("same bytes"), testDocs)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("%s: two archives of the same binary differ: %s, %s", tg.Name, a, b)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "a"))
		bin, mode, err := unpack(data, tg, tg.exe())
		if err != nil || string(bin) != "same bytes" || mode&0o111 == 0 {
			t.Errorf("%s: unpack = %q, %v, %v; want the binary, executable", tg.Name, bin, mode, err)
		}
	}
}

func TestCheckFindsDisagreements(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, out, manifests string)
		want   string
	}{
		{"an archive changed after the manifests were written", func(t *testing.T, out, _ string) {
			p := filepath.Join(out, targets[0].archive("1.2.3"))
			data, _ := os.ReadFile(p)
			data[len(data)-1] ^= 0xff
			os.WriteFile(p, data, 0o644)
		}, "darwin-aarch64: hermes-acp-1.2.3-darwin-aarch64.tar.gz has sha256"},
		{"an archive is missing", func(t *testing.T, out, _ string) {
			os.Remove(filepath.Join(out, targets[4].archive("1.2.3")))
		}, "windows-aarch64: open"},
		{"agent.json names another archive than extension.toml", func(t *testing.T, _, manifests string) {
			p := filepath.Join(manifests, "agent.json")
			data, _ := os.ReadFile(p)
			s := strings.Replace(string(data), `/v1.2.3/hermes-acp-1.2.3-darwin-aarch64`, `/v1.2.4/hermes-acp-1.2.3-darwin-aarch64`, 1)
			os.WriteFile(p, []byte(s), 0o644)
		}, "extension.toml says"},
		{"extension.toml carries another checksum", func(t *testing.T, _, manifests string) {
			p := filepath.Join(manifests, "extension.toml")
			data, _ := os.ReadFile(p)
			s := strings.Replace(string(data), `sha256 = "`, `sha256 = "00`, 1)
			os.WriteFile(p, []byte(s), 0o644)
		}, "extension.toml carries 00"},
		{"an archive without the licence", func(t *testing.T, out, _ string) {
			tg := targets[3]
			sum, err := writeArchive(filepath.Join(out, tg.archive("1.2.3")), tg, []byte("binary for "+tg.Name), map[string][]byte{"LICENSE": nil, "NOTICE": []byte("x")})
			if err != nil {
				t.Fatal(err)
			}
			_ = sum
		}, "linux-x86_64: hermes-acp-1.2.3-linux-x86_64.tar.gz has no LICENSE"},
		{"the icon has a fixed colour", func(t *testing.T, _, manifests string) {
			os.WriteFile(filepath.Join(manifests, "icon.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path fill="#000" d="M0 0h16v16z"/></svg>`), 0o644)
		}, `icon.svg: fixed fill="#000"`},
		{"agent.json says proprietary", func(t *testing.T, _, manifests string) {
			p := filepath.Join(manifests, "agent.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"license": "MIT"`, `"license": "proprietary"`, 1)), 0o644)
		}, `agent.json: license "proprietary"`},
		{"a target is missing from extension.toml", func(t *testing.T, _, manifests string) {
			p := filepath.Join(manifests, "extension.toml")
			data, _ := os.ReadFile(p)
			s, _, _ := strings.Cut(string(data), "[agent_servers.hermes.targets.windows-x86_64]")
			os.WriteFile(p, []byte(s), 0o644)
		}, "extension.toml: no target windows-x86_64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, manifests := fakeRelease(t)
			tt.break_(t, out, manifests)
			err := check(out, manifests, checkOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("check = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckBinaryKnowsThePlatform(t *testing.T) {
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	// This test binary is an executable for the host: every other target
	// must be refused.
	for _, tg := range targets {
		if tg.GOOS == runtime.GOOS && tg.GOARCH == runtime.GOARCH {
			continue // the test binary may be position-independent
		}
		if err := checkBinary(self, tg); err == nil {
			t.Errorf("checkBinary(a %s/%s executable, %s) = nil, want an error", runtime.GOOS, runtime.GOARCH, tg.Name)
		}
	}
	if err := checkBinary([]byte("binary for linux-aarch64"), targets[2]); err == nil || !strings.Contains(err.Error(), "not an ELF") {
		t.Errorf("checkBinary(text) = %v, want not an ELF", err)
	}
}
