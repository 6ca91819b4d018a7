SHELL := bash
# ctxhook. The two commands a newcomer needs: `make demo` and `make test`.
GO      ?= go
BIN     ?= bin/ctxhook
FUZZTIME ?= 15s
# make test runs every fuzz target briefly (its seeds and a few seconds of
# search, two targets at a time); `make fuzz` runs them for FUZZTIME.
TEST_FUZZTIME ?= 8s

# plugin.wasm is committed and must be byte-for-byte reproducible from the
# sources: the same command, with the same Go release (fetched through the
# module proxy if the local Go differs), builds it here, in CI and in
# `make verify.wasm`.
WASM_TOOLCHAIN ?= go1.26.8
WASM_BUILD = GOTOOLCHAIN=$(WASM_TOOLCHAIN) GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w"

.PHONY: test-body cross wine bench-wine dist dist-check npm npm-check chaos chaos-big soak rules wordgrams bench-secrets all build plugin verify.wasm demo test unit js adapters e2e fuzz bench retrievalbench lexicon vet check clean

all: build

build: ## build bin/ctxhook and the hook client bin/ctxhook-hook
	CGO_ENABLED=0 $(GO) build -tags= -trimpath -buildvcs=auto -o $(BIN) ./host/cmd/ctxhook
	CGO_ENABLED=0 $(GO) build -tags= -trimpath -buildvcs=auto -o $(BIN)-hook ./host/cmd/ctxhook-hook

plugin: ## rebuild plugin/plugin.wasm and its .sha256 from plugin/
	$(WASM_BUILD) -o plugin/plugin.wasm ./plugin/guest
	$(GO) run ./tools/wasmsum
	@ls -l plugin/plugin.wasm

rules: ## regenerate the redaction rules from gitleaks' catalogue (needs the Go module proxy), then make plugin
	$(GO) run ./tools/gitleaksgen -version v8.30.1 -o plugin/internal/redact/gitleaks_gen.go

wordgrams: ## regenerate the letter-pair table the shape stage reads words by (from ctxhook's own docs and names), then make plugin
	$(GO) run ./tools/wordgrams -o plugin/internal/redact/wordgrams_gen.go

verify.wasm: ## fail if the committed plugin.wasm differs from a fresh build
	@tmp=$$(mktemp -d) && \
	$(WASM_BUILD) -o $$tmp/plugin.wasm ./plugin/guest && \
	if cmp -s $$tmp/plugin.wasm plugin/plugin.wasm; then echo "plugin.wasm is reproducible ($$(sha256sum < $$tmp/plugin.wasm | cut -c1-16)…)"; rm -rf $$tmp; \
	else echo "plugin/plugin.wasm differs from a fresh build of ./plugin/guest: run 'make plugin' and commit"; rm -rf $$tmp; exit 1; fi

demo: build ## replay the bundled recorded session through the real hooks (built as make build builds, so one compilation serves both)
	$(BIN) demo

test: ## everything CI runs, in a root of its own (HOME, TMPDIR, XDG dirs); then none of its processes or temp entries may be left, nor a write into the real ctxhook directories (scripts/leftovers.sh)
	@scripts/leftovers.sh $(MAKE) test-body

# The stages, each timed with its CPU (scripts/stages.sh); the real
# clients install from npm meanwhile, for the e2e stage.
test-body:
	@MAKE=$(MAKE) GO=$(GO) TEST_FUZZTIME=$(TEST_FUZZTIME) scripts/stages.sh

# The release targets: every one builds, and vet (tests included) passes per
# OS; darwin's test binaries compile (no macOS machine runs them here).
TARGETS = linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64 windows/arm64

# The test knobs (package testhooks: a replacement plugin, a slowed daemon,
# a compile log) are compiled only into test binaries: every go test and
# vet here passes TESTTAGS; build, dist, npm and go install never do.
TESTTAGS = -tags ctxhook_testhooks

# Release binaries are compiled with these flags everywhere (cross, wine,
# tools/dist for dist-check and the npm packages), so each target's packages
# are compiled once and every later build of it is a build-cache hit.
# -tags= on the command line overrides any -tags a GOFLAGS (environment or
# go env file) carries, so no release build gets the test knobs.
RELEASE_FLAGS = -tags= -trimpath -buildvcs=false -ldflags="-s -w -buildid="

# Vet and the test binaries are compiled with -trimpath and for a target
# the release builds just compiled (linux/amd64, darwin/arm64,
# windows/amd64), so they reuse those compilations from the build cache
# instead of compiling every package again per check.
cross: ## build every command for every release target; vet per OS; compile the darwin and windows test binaries
	@set -e; for t in $(TARGETS); do echo "build $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 GOFLAGS= $(GO) build $(RELEASE_FLAGS) -o /dev/null ./host/cmd/ctxhook ./host/cmd/ctxhook-hook; done
	@set -e; for t in linux/amd64 darwin/arm64 windows/amd64; do echo "vet $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 GOFLAGS= $(GO) vet -trimpath ./...; done
	@# every package's test binary built and linked (two packages may share a
	@# name, so none is written: -exec true "runs" each without running it)
	set -o pipefail; GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 GOFLAGS= $(GO) test $(TESTTAGS) -trimpath -count=1 -vet=off -exec=true ./... | { grep -vE '^(ok|\?) ' || true; }
	set -o pipefail; GOOS=windows GOARCH=amd64 CGO_ENABLED=0 GOFLAGS= $(GO) test $(TESTTAGS) -trimpath -count=1 -vet=off -exec=true ./... | { grep -vE '^(ok|\?) ' || true; }

# What of the Windows build Wine 8.0 can run: the named pipe, file locks, state, install
# round trips, platform (owned: its ACL test says why it skips; the watchdog
# helper; terminal detection), paths, config, the store (short: its 64 MiB timings
# take minutes there); then a real Claude Code payload through
# ctxhook-hook.exe and a search that finds it (scripts/wine/smoke.sh); then
# warm hooks through the daemon's named pipe, cold ones, and the fallback
# with the daemon killed (host/tests/winhook).
WINE_PKGS = host/store host/internal/winpipe host/internal/platform host/internal/state host/internal/install host/internal/paths host/internal/config

wine: ## the Windows build's tests under Wine (Debian's wine64 8.0)
	@rm -rf bin/win && mkdir -p bin/win
	@# Compiled as make cross compiles the Windows test binaries, so the
	@# packages come from the build cache.
	@set -e; for p in $(WINE_PKGS); do GOOS=windows GOARCH=amd64 CGO_ENABLED=0 GOFLAGS= $(GO) test -trimpath -vet=off -c -o bin/win/$$(basename $$p).test.exe ./$$p; done
	@set -e; for p in $(WINE_PKGS); do n=$$(basename $$p); echo "wine: $$n"; scripts/wine/run.sh bin/win/$$n.test.exe -test.count=1 -test.short > bin/win/$$n.log 2>&1 || { cat bin/win/$$n.log; exit 1; }; tail -1 bin/win/$$n.log; done
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 GOFLAGS= $(GO) build $(RELEASE_FLAGS) -o bin/win/ ./host/cmd/ctxhook ./host/cmd/ctxhook-hook
	scripts/wine/smoke.sh bin/win
	@# The warm path: a hook through the daemon's named pipe, a cold one, and the fallback with the daemon killed.
	GOOS=windows GOARCH=amd64 $(GO) build -trimpath -o bin/win/winhook.exe ./host/tests/winhook
	scripts/wine/run.sh bin/win/winhook.exe -bin bin/win -rounds 3

bench-wine: ## under Wine: warm hooks (named pipe) against cold ones (in-process), the warm/cold ratio
	@mkdir -p bin/win
	GOOS=windows GOARCH=amd64 $(GO) build -trimpath -o bin/win/ctxhook.exe ./host/cmd/ctxhook
	GOOS=windows GOARCH=amd64 $(GO) build -trimpath -o bin/win/ctxhook-hook.exe ./host/cmd/ctxhook-hook
	GOOS=windows GOARCH=amd64 $(GO) build -trimpath -o bin/win/winhook.exe ./host/tests/winhook
	scripts/wine/run.sh bin/win/winhook.exe -bin bin/win -rounds 20

dist: ## release archives for every target (binaries, README, LICENSE, NOTICE, CHANGELOG) and SHA256SUMS in dist/, reproducibly
	$(GO) run ./tools/dist -out dist

dist-check: ## two dist runs give identical archives (DIST_TARGETS="..." for fewer; make test checks a .tar.gz and a .zip one)
	@rm -rf bin/dist-a bin/dist-b
	$(GO) run ./tools/dist -out bin/dist-a $(if $(DIST_TARGETS),-targets "$(DIST_TARGETS)") >/dev/null
	$(GO) run ./tools/dist -out bin/dist-b $(if $(DIST_TARGETS),-targets "$(DIST_TARGETS)") >/dev/null
	cmp bin/dist-a/SHA256SUMS bin/dist-b/SHA256SUMS && for f in bin/dist-a/*; do cmp "$$f" "bin/dist-b/$$(basename $$f)"; done
	@cat bin/dist-a/SHA256SUMS; rm -rf bin/dist-a bin/dist-b

npm: ## the npm packages in dist/npm: ctxhook, one @ctxhook/<os>-<cpu> per target (the binaries), and the JS adapters, as npm pack tarballs (TARGETS=linux/amd64 for one platform)
	@rm -rf dist/npm
	scripts/npm-pack.sh dist/npm $(TARGETS)
	@ls dist/npm/*.tgz

npm-check: adapters ## the npm packages installed offline into a fresh prefix: npx ctxhook --version, install --dry-run, a hook, @ctxhook/core finding the binary
	scripts/npm-check.sh

vet:
	$(GO) vet $(TESTTAGS) ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

unit: adapters ## unit, conformance and differential tests (Go, then the JS adapters on Node and Bun)
	$(GO) test $(TESTTAGS) -count=1 -timeout 40m ./...
	$(MAKE) js

# The same tests run on Node and on the Bun release OpenCode embeds, which
# `make adapters` installs from npm (an optional dependency, pinned in
# adapters/package-lock.json) where a build exists.
BUN = adapters/node_modules/@oven/bun-linux-x64/bin/bun

# The tests that need a knob (a daemon of another build) start
# $(KNOB_BIN), built with $(TESTTAGS); everything else runs $(BIN).
KNOB_BIN = bin/knobs/ctxhook

js: build adapters ## the JS adapters' tests (on Node, then on Bun): conformance corpus, daemon path, OpenCode loader, Agent SDK callbacks
	CGO_ENABLED=0 $(GO) build $(TESTTAGS) -trimpath -o $(KNOB_BIN) ./host/cmd/ctxhook
	cd adapters && CTXHOOK_BIN=$(CURDIR)/$(BIN) CTXHOOK_KNOB_BIN=$(CURDIR)/$(KNOB_BIN) NODE_NO_WARNINGS=1 node --test $(patsubst adapters/%,%,$(wildcard adapters/*/test/))
	node --test npm/ctxhook/test/
	@if [ -x $(BUN) ]; then \
	  echo "cd adapters && $(CURDIR)/$(BUN) test --timeout 120000 ./core/test/ ./opencode/test/ ./agent-sdk/test/"; \
	  cd adapters && CTXHOOK_BIN=$(CURDIR)/$(BIN) CTXHOOK_KNOB_BIN=$(CURDIR)/$(KNOB_BIN) $(CURDIR)/$(BUN) test --timeout 120000 ./core/test/ ./opencode/test/ ./agent-sdk/test/; \
	else echo "no Bun build for this platform: the JS adapters were tested on Node only"; fi

adapters: adapters/node_modules/.package-lock.json ## install the JS adapters' one dependency (@extism/extism)
adapters/node_modules/.package-lock.json: adapters/package-lock.json
	cd adapters && npm ci --no-audit --no-fund

e2e: ## real-client end-to-end tests: install pinned clients (network), then run offline; the Claude Code ones twice, the second time with mcp_tool hooks
	CTXHOOK_E2E_PREPARE=1 $(GO) test -count=1 ./e2e/
	$(GO) test -c -o bin/e2e.test ./e2e/ && $(MAKE) build && $(GO) build -o bin/testmcp ./e2e/testmcp
	cd e2e && CTXHOOK_E2E=1 CTXHOOK_E2E_BIN=$(CURDIR)/bin ../scripts/offline.sh ../bin/e2e.test -test.count=1 -test.v 2>&1 | grep -v '^=== ' ; exit $${PIPESTATUS[0]}
	@# The Claude Code tests again, its tool hooks installed as mcp_tool hooks.
	cd e2e && CTXHOOK_E2E_HOOK_TYPE=mcp_tool CTXHOOK_E2E=1 CTXHOOK_E2E_BIN=$(CURDIR)/bin ../scripts/offline.sh ../bin/e2e.test -test.count=1 -test.v -test.run 'TestClaudeCode' -test.skip 'MCPToolHooks' 2>&1 | grep -v '^=== ' ; exit $${PIPESTATUS[0]}

# Every fuzz target (package:function). scripts/fuzz.sh runs them: a
# finding writes its failing input under testdata/fuzz and fails at once;
# a worker that died without one is run once more.
FUZZ_TARGETS = \
	./host/internal/ownsecrets:FuzzDocTokens \
	./host/internal/ownsecrets:FuzzParseRecord \
	./host/internal/ownsecrets:FuzzPgpassLookup \
	./host/internal/ownsecrets:FuzzPresent \
	./host/internal/ownsecrets:FuzzURLPasswords \
	./internal/threatmodel:FuzzGrantees \
	./internal/threatmodel:FuzzJSStrip \
	./plugin/internal/claude:FuzzParse \
	./plugin/internal/gemini:FuzzParse \
	./plugin/internal/cursor:FuzzParse \
	./plugin/internal/opencode:FuzzParse \
	./plugin/internal/auggie:FuzzParse \
	./plugin/internal/cline:FuzzParse \
	./plugin/internal/pi:FuzzParse \
	./plugin/internal/transcript:FuzzParse \
	./plugin/internal/transcript:FuzzParseFormats \
	./plugin/internal/shape:FuzzHead \
	./plugin/internal/engine:FuzzHandle \
	./plugin/internal/engine:FuzzModelTextNames \
	./plugin/internal/classify:FuzzMCPName \
	./plugin/internal/redact:FuzzString \
	./plugin/internal/redact:FuzzScan \
	./plugin/internal/redact:FuzzPassMatchesSequential \
	./plugin/internal/redact:FuzzPreSound \
	./plugin/internal/redact:FuzzTokenRuns \
	./plugin/internal/jsonfast:FuzzDecode \
	./plugin/internal/jsonfast:FuzzAppendString \
	./plugin/internal/jsonpath:FuzzFirstString \
	./plugin/internal/mcpmsg:FuzzParse \
	./plugin/modeltext:FuzzEscape \
	./host/store:FuzzQuery \
	./host/store:FuzzSnippet \
	./host/store:FuzzSplit \
	./host/store:FuzzTrigramText \
	./host/store:FuzzUnescapeJSON \
	./host/store/spool:FuzzRead \
	./host/internal/mcpserver:FuzzHookPayload \
	./host/internal/proxy:FuzzEnvelope \
	./host/internal/proxy:FuzzMirror \
	./host/internal/proxy:FuzzReadLines \
	./host/internal/proxy:FuzzSkeleton \
	./host/internal/platform:FuzzWriter \
	./host/internal/config:FuzzParse \
	./host/internal/hookproto:FuzzRead \
	./host/internal/hookproto:FuzzParseRequest \
	./host/internal/hookproto:FuzzReadAdmitted \
	./host/internal/state:FuzzSessionPath \
	./host/internal/platform:FuzzIsPrivateGroup \
	./host/internal/firing:FuzzTopString \
	./internal/threatmodel:FuzzNames

# make fuzz runs one target at a time with every core; make test two at
# a time, one worker each (FUZZ_JOBS=2), so no core idles while a target
# compiles or replays its corpus.
FUZZ_JOBS ?= 1

fuzz: ## every fuzz target, FUZZTIME each (make test runs them briefly, two at a time)
	@GO=$(GO) scripts/fuzz.sh $(FUZZTIME) $(FUZZ_JOBS) $(FUZZ_TARGETS)

chaos: ## kill-9 chaos: 40 rounds of 16 hooks at once, 30% SIGKILLed, the daemon too; no acknowledged event lost, integrity ok; then 64 first hooks at once on an empty cache (with the daemon, beside two busy loops, without it): all within the deadline, one compilation
	CTXHOOK_CHAOS=1 $(GO) test $(TESTTAGS) -count=1 -run 'TestKillChaos|TestColdBurst' -v ./host/tests/chaos

soak: ## a long day: one proxy session of 20,000 relayed calls (1 KB-1 MiB) and one daemon serving 20,000 hooks (200 of 1 MiB in a row): no failed decision, RSS at most 150 MB, p99 not growing past 1.5x (CTXHOOK_SOAK_CALLS=n for fewer)
	@out=$$(CTXHOOK_SOAK=1 $(GO) test $(TESTTAGS) -p 1 -count=1 -timeout 60m -run 'TestSoakDaemon|TestSoakProxy' -v ./host/internal/daemon ./host/internal/proxy 2>&1); st=$$?; \
	  echo "$$out" | grep -E '^(proxy|daemon) soak|FAIL|^ok|_test.go'; exit $$st

chaos-big: ## 100 hooks of 3-64 MiB under deadlines that expire mid-call: none late, none lost, every pointer stored (CTXHOOK_CHAOS_BIG=n for fewer); then a 64 MiB result through the proxy, shaped, idle and under two busy loops
	CTXHOOK_CHAOS=1 $(GO) test $(TESTTAGS) -count=1 -timeout 30m -run TestBigDeadlineChaos -v ./host/tests/chaos
	CTXHOOK_PROXY_HUGE=1 CTXHOOK_PROXY_HUGE_BUSY=1 $(GO) test $(TESTTAGS) -count=1 -timeout 30m -run TestHugeResult -v ./host/internal/proxy

bench-secrets: ## redaction figures: recall on gitleaks' formats (TestRecall, TestRecallMore) and on 63 formats no rule names (tuned and held-out values), false positives per 10 MB by the whole pipeline and by the shape stage alone, in generated clean text and in Go's, npm's and Python's own sources when present; and the frozen held-out corpus (internal/heldoutcorpus): recall per form and per kind over 10 seeds, redactions of identifiers, false positives per 10 MB; and the fresh corpus (internal/freshcorpus), written apart from the detector: recall per form and kind, redactions of clean text per category
	@CTXHOOK_BENCH_SECRETS=1 $(GO) test -count=1 -run 'TestRecall$$|TestRecallMore|TestUnnamedRecall|TestUnnamedFalsePositives|TestUnnamedRealText|TestHeldoutRecall|TestHeldoutIdentifiers|TestHeldoutFalsePositives|TestFreshRecall|TestFreshClean' -v ./plugin/internal/redact 2>&1 | \
	  grep -E 'planted:|unnamed formats|false positives|held-out|fresh (recall|clean)|fresh_test.go:[0-9]+:   (form|kind) |^(--- FAIL|FAIL|ok)' | sed -E 's/^ +[a-z_]+_test\.go:[0-9]+: //; s/; missed by format: map\[.*//'

bench: build adapters bench-secrets ## Go benchmarks, whole-process hook timings (warm, cold, 8 parallel) as ratios against node -e 0, Go hello and (npm permitting) context-mode's hook, the daemon path with 1-64 MiB results beside cat of the same bytes, the writer's lag after 200 x 1 MiB hooks, daemon RSS after a 64 MiB result and after many requests, the OpenCode adapter per tool call (daemon and in-process), search against native SQLite, proxy latency, throughput (1-64 MiB), first answer, proxy and daemon RSS after a 64 MiB result, daemon memory under a flood, the shared store against the local one at 100k and 1M events (search p50/p99, shipping, 10 MiB to searchable; about 17 minutes; PGBENCH_SIZES=100000 for the smaller alone), index --all over 100 MB of generated history (MB/s, peak RSS, beside the store alone), retrieval quality (make retrievalbench), and under Wine the warm/cold hook ratio
	$(GO) test -run '^$$' -bench . -benchmem ./plugin/... ./host/...
	@cm=$$(scripts/context-mode.sh "$${XDG_CACHE_HOME:-$$HOME/.cache}/ctxhook-bench/context-mode") && \
	  set -- -context-mode "$$(echo "$$cm" | sed -n 1p)" -context-mode-node "$$(echo "$$cm" | sed -n 2p)" || \
	  { echo "(context-mode not timed: see above)"; set --; }; \
	  echo "$(GO) run ./host/tests/hookbench -bin bin $$*"; \
	  $(GO) run ./host/tests/hookbench -bin bin "$$@"
	cd adapters && CTXHOOK_BIN=$(CURDIR)/$(BIN) node core/bench.mjs 200
	CTXHOOK_BENCH=1 CTXHOOK_PROXY_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 30m -run 'TestProxyLatency|TestProxyThroughput|TestProxyFirstAnswer|TestMemoryAfterBigResult' -v ./host/internal/proxy/ | grep -vE '^(=== |--- |PASS|ok )'
	@echo "daemon memory under a flood (3 clients x 1 GiB, peak RSS from /proc VmHWM):"
	$(GO) test -count=1 -timeout 10m -run 'TestDaemonFlood' -v ./host/internal/daemon/ | grep -E 'flood:|FAIL'
	$(GO) run ./host/tests/pgbench -sizes $(PGBENCH_SIZES)
	@echo "ctxhook index --all over 100 MB of generated history of every harness (MB/s, peak RSS, beside the store alone; fails over 300 MB or on a second run that indexes again; -size 1G for the full figure):"
	$(GO) run ./host/tests/indexbench -bin $(BIN) -size 100M
	$(MAKE) retrievalbench
	@if command -v wine >/dev/null; then $(MAKE) bench-wine; else echo "(no Wine here: the Windows warm/cold ratio was not measured)"; fi

PGBENCH_SIZES ?= 100000,1000000

retrievalbench: ## search quality: the frozen questions (testdata/retrieval) through ctxhook mcp's search and a plain FTS5 BM25 baseline, per class (docs/search.md)
	$(GO) run ./host/tests/retrievalbench

lexicon: ## host/store/lexicon's related-word table, from WordNet 3.0 (apt-get install wordnet-base; the table is committed)
	$(GO) run ./host/store/lexicon/gen -wordnet /usr/share/wordnet -out host/store/lexicon/related.txt.gz

check: vet verify.wasm adapters ## the everyday subset (a few minutes): vet, the wasm check and the Go tests in -short mode; make test is CI's full run
	CTXHOOK_TEST_CACHE=$(CURDIR)/bin/test-cache $(GO) test $(TESTTAGS) -short -count=1 ./...

clean:
	rm -rf bin
