SHELL := bash
# ctxhook. The two commands a newcomer needs: `make demo` and `make test`.
GO      ?= go
BIN     ?= bin/ctxhook
FUZZTIME ?= 15s

# plugin.wasm is committed and must be byte-for-byte reproducible from the
# sources: the same command, with the same Go release (fetched through the
# module proxy if the local Go differs), builds it here, in CI and in
# `make verify.wasm`.
WASM_TOOLCHAIN ?= go1.26.8
WASM_BUILD = GOTOOLCHAIN=$(WASM_TOOLCHAIN) GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w"

.PHONY: all build plugin verify.wasm demo test unit js adapters e2e fuzz bench vet check clean

all: build

build: ## build bin/ctxhook
	$(GO) build -trimpath -o $(BIN) ./host/cmd/ctxhook

plugin: ## rebuild plugin/plugin.wasm and its .sha256 from plugin/
	$(WASM_BUILD) -o plugin/plugin.wasm ./plugin/guest
	sha256sum plugin/plugin.wasm | cut -d' ' -f1 > plugin/plugin.wasm.sha256
	@ls -l plugin/plugin.wasm

verify.wasm: ## fail if the committed plugin.wasm differs from a fresh build
	@tmp=$$(mktemp -d) && \
	$(WASM_BUILD) -o $$tmp/plugin.wasm ./plugin/guest && \
	if cmp -s $$tmp/plugin.wasm plugin/plugin.wasm; then echo "plugin.wasm is reproducible ($$(sha256sum < $$tmp/plugin.wasm | cut -c1-16)…)"; rm -rf $$tmp; \
	else echo "plugin/plugin.wasm differs from a fresh build of ./plugin/guest: run 'make plugin' and commit"; rm -rf $$tmp; exit 1; fi

demo: ## replay the bundled recorded session through the real hooks
	$(GO) run ./host/cmd/ctxhook demo

test: vet verify.wasm unit fuzz e2e ## everything CI runs

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

unit: adapters ## unit, conformance and differential tests (Go, then the JS adapters on Node)
	$(GO) test -count=1 ./...
	$(MAKE) js

js: build adapters ## the JS adapters' tests: conformance corpus, OpenCode loader, Agent SDK callbacks
	cd adapters && CTXHOOK_BIN=$(CURDIR)/$(BIN) NODE_NO_WARNINGS=1 node --test core/test/ opencode/test/ agent-sdk/test/

adapters: adapters/node_modules/.package-lock.json ## install the JS adapters' one dependency (@extism/extism)
adapters/node_modules/.package-lock.json: adapters/package-lock.json
	cd adapters && npm ci --no-audit --no-fund

e2e: ## real-client end-to-end tests: install pinned clients (network), then run offline
	CTXHOOK_E2E_PREPARE=1 $(GO) test -count=1 ./e2e/
	$(GO) test -c -o bin/e2e.test ./e2e/ && $(GO) build -o bin/ctxhook ./host/cmd/ctxhook && $(GO) build -o bin/testmcp ./e2e/testmcp
	cd e2e && CTXHOOK_E2E=1 CTXHOOK_E2E_BIN=$(CURDIR)/bin ../scripts/offline.sh ../bin/e2e.test -test.count=1 -test.v 2>&1 | grep -v '^=== ' ; exit $${PIPESTATUS[0]}

# A finding always writes its failing input under testdata/fuzz and fails at
# once. A run that fails without writing one (a fuzz worker that died on a
# loaded machine) is run once more, and its output is printed either way.
fuzz: ## every fuzz target, FUZZTIME each (CI runs them short)
	@set -eo pipefail; for t in \
	  ./plugin/internal/claude:FuzzParse \
	  ./plugin/internal/gemini:FuzzParse \
	  ./plugin/internal/cursor:FuzzParse \
	  ./plugin/internal/opencode:FuzzParse \
	  ./plugin/internal/transcript:FuzzParse \
	  ./plugin/internal/shape:FuzzHead \
	  ./plugin/internal/engine:FuzzHandle \
	  ./plugin/internal/redact:FuzzString \
	  ./plugin/internal/jsonpath:FuzzFirstString \
	  ./plugin/internal/mcpmsg:FuzzParse \
	  ./host/store:FuzzQuery \
	  ./host/store:FuzzSnippet \
	  ./host/internal/config:FuzzParse; do \
	  pkg=$${t%%:*}; fn=$${t##*:}; echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
	  before=$$(ls $$pkg/testdata/fuzz/$$fn 2>/dev/null | wc -l || true); \
	  if ! out=$$($(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg 2>&1); then \
	    echo "$$out" | grep -v '^fuzz: elapsed'; \
	    if [ "$$(ls $$pkg/testdata/fuzz/$$fn 2>/dev/null | wc -l || true)" != "$$before" ]; then exit 1; fi; \
	    echo "no failing input was written (a fuzz worker died, not a finding): running $$fn once more"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg 2>&1) || { echo "$$out" | grep -v '^fuzz: elapsed'; exit 1; }; \
	  fi; \
	  echo "$$out" | tail -1; done

bench: ## Go benchmarks, whole-process hook timings, proxy latency (ratios against baselines)
	$(GO) test -run '^$$' -bench . -benchmem ./plugin/... ./host/...
	./scripts/bench-hook.sh
	CTXHOOK_BENCH=1 $(GO) test -count=1 -run TestProxyLatency -v ./host/internal/proxy/ | grep -E 'latency|direct|proxied|added'

check: test ## alias

clean:
	rm -rf bin
