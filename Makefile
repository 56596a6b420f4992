# hermes-acp — `make check` is what CI runs (.ci/run) and what the README
# calls the test command.
GO ?= go
BIN ?= bin/hermes-acp

.PHONY: build check vet fmt-check test node-deps bench clean

# A static binary (no libc); CGO_ENABLED=0 also starts ~3 ms faster.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/hermes-acp

## check: vet, gofmt, and every test under the race detector, including the
## end-to-end conformance tests (official TypeScript and Go ACP SDKs).
check: vet fmt-check node-deps test

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './conformance/node_modules/*'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The TypeScript SDK conformance test needs the locked Node packages.
node-deps: conformance/node_modules/.package-lock.json

conformance/node_modules/.package-lock.json: conformance/package.json conformance/package-lock.json
	npm ci --prefix conformance --no-audit --no-fund

test:
	$(GO) test -race -count=1 ./...

## bench: the performance measurements reported in docs/benchmarks.md.
bench:
	bench/acp/run.sh
	bench/startfloor/run.sh
	bench/lint/run.sh
	bench/search/run.sh
	bench/limits/run.sh

clean:
	rm -rf bin conformance/node_modules
