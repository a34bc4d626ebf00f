# Tally — every target runs on Node 24. A machine whose node is older gets a
# project-local Node 24 from the npm registry in .toolchain/ (git-ignored).
SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_VERSION := 24.21.0
TOOLCHAIN    := $(CURDIR)/.toolchain
ARCH         := $(shell uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/')
SYS_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)

ifeq ($(shell [ "$(SYS_NODE_MAJOR)" -ge 24 ] 2>/dev/null && echo own),own)
  NODE_STAMP :=
  # build native addons against this node's own headers, whatever ~/.npmrc says
  OWN_NODE_PREFIX := $(shell node -p 'require("path").dirname(require("path").dirname(process.execPath))')
  ifneq ($(wildcard $(OWN_NODE_PREFIX)/include/node/node.h),)
    export npm_config_nodedir := $(OWN_NODE_PREFIX)
  endif
else
  NODE_STAMP := $(TOOLCHAIN)/node/bin/node
  export PATH := $(TOOLCHAIN)/node/bin:$(PATH)
  # native addons (re2) must build against the headers of the node that loads them;
  # the env var beats a user-level nodedir in ~/.npmrc
  export npm_config_nodedir := $(TOOLCHAIN)/node
endif

DEPS := node_modules/.installed
BASE_URL ?= http://127.0.0.1:3000
PG_TEST_URL ?= postgres://postgres@127.0.0.1:5432/test

CONSOLE_SRC := $(shell find console/src console/index.html console/vite.config.ts sdk/index.ts sdk/src shared generated/client -type f 2>/dev/null)

.PHONY: help run test console console-test browser-test lint typecheck generate check-generated sdk unit integration integration-pg fuzz fuzz-pg conformance conformance-inprocess mock bench cli node node22 docs-test

help:
	@echo "make run | test | generate | conformance BASE_URL=... PUBLIC_KEY=... SECRET_KEY=... | mock | bench"

$(TOOLCHAIN)/node/bin/node:
	@mkdir -p $(TOOLCHAIN)/tmp
	@echo "fetching Node $(NODE_VERSION) ($(ARCH)) from the npm registry into .toolchain/"
	cd $(TOOLCHAIN)/tmp && npm pack --silent node-linux-$(ARCH)@$(NODE_VERSION) >/dev/null
	rm -rf $(TOOLCHAIN)/node && mkdir -p $(TOOLCHAIN)/node
	tar -xzf $(TOOLCHAIN)/tmp/node-linux-$(ARCH)-$(NODE_VERSION).tgz -C $(TOOLCHAIN)/node --strip-components=1
	rm -rf $(TOOLCHAIN)/tmp
	@$@ --version

node: $(NODE_STAMP)
	@node --version

# Node 22 for the SDK tarball test (Node 20, 22 and 24), fetched once into .toolchain/node22
$(TOOLCHAIN)/node22/bin/node:
	@mkdir -p $(TOOLCHAIN)/tmp22
	cd $(TOOLCHAIN)/tmp22 && npm pack --silent node-linux-$(ARCH)@22 >/dev/null
	rm -rf $(TOOLCHAIN)/node22 && mkdir -p $(TOOLCHAIN)/node22
	tar -xzf $(TOOLCHAIN)/tmp22/node-linux-$(ARCH)-22.*.tgz -C $(TOOLCHAIN)/node22 --strip-components=1
	rm -rf $(TOOLCHAIN)/tmp22
	@$@ --version

node22: $(TOOLCHAIN)/node22/bin/node

$(DEPS): package.json package-lock.json $(NODE_STAMP)
	npm ci --no-audit --no-fund
	@touch $@

generate: $(DEPS)
	node scripts/generate.ts

check-generated: $(DEPS)
	node scripts/generate.ts --check

# the spec (Redocly), then the code: Biome checks formatting and lint rules (biome.json) and
# fails on any error; `npx biome check --write <files>` formats and applies the safe fixes
lint: $(DEPS)
	npx --no-install redocly lint openapi/openapi.yaml --config openapi/redocly.yaml
	npx --no-install biome ci --error-on-warnings

typecheck: $(DEPS)
	npx --no-install tsc -p tsconfig.json --noEmit
	npx --no-install tsc -p console/tsconfig.json --noEmit

# the SDK package: ESM + .d.ts in sdk/dist/ and the installable sdk/dist/tally-sdk-<version>.tgz
sdk: $(DEPS) $(TOOLCHAIN)/node22/bin/node
	node sdk/build.ts

unit: $(DEPS)
	npx --no-install vitest run --project unit

integration: $(DEPS)
	DATABASE_URL= npx --no-install vitest run --project integration

# the same integration suite on the real PostgreSQL, when one answers
integration-pg: $(DEPS)
	@url="$${DATABASE_URL:-$(PG_TEST_URL)}"; \
	if node scripts/pg-reachable.ts "$$url"; then \
	  DATABASE_URL="$$url" npx --no-install vitest run --project integration; \
	else echo "PostgreSQL not reachable at $$url: skipping the PostgreSQL run"; fi

# spec-driven fuzzing (server/test/fuzz): seeded (FUZZ_SEED, printed), a few thousand requests
fuzz: $(DEPS)
	DATABASE_URL= npx --no-install vitest run --project fuzz

fuzz-pg: $(DEPS)
	@url="$${DATABASE_URL:-$(PG_TEST_URL)}"; \
	if node scripts/pg-reachable.ts "$$url"; then \
	  DATABASE_URL="$$url" npx --no-install vitest run --project fuzz; \
	else echo "PostgreSQL not reachable at $$url: skipping the PostgreSQL fuzz run"; fi

test: $(DEPS) check-generated lint typecheck sdk unit console-test integration integration-pg analytics-test analytics-test-pg instrumentation-test instrumentation-test-pg conformance-inprocess fuzz fuzz-pg browser-test

conformance-inprocess: $(DEPS)
	DATABASE_URL= node conformance/run.ts --in-process

conformance: $(DEPS)
	node conformance/run.ts --base-url "$(BASE_URL)" --public-key "$(PUBLIC_KEY)" --secret-key "$(SECRET_KEY)" \
	  $(if $(GATEWAY_URL),--gateway-url "$(GATEWAY_URL)" --gateway-listen "$(or $(GATEWAY_LISTEN),0.0.0.0:8787)")

# the web console (console/): built into console/dist/ when missing or older than its sources
console/dist/index.html: $(DEPS) $(CONSOLE_SRC)
	npx --no-install vite build --config console/vite.config.ts --logLevel warn

console: console/dist/index.html

# the console's component tests (jsdom + the spec-example msw handlers)
console-test: $(DEPS)
	npx --no-install vitest run --project console

# /docs and the console in headless Chromium (Debian's, installed when missing, skipped with a
# message where it cannot be); screenshots in scratch/browser/
browser-test: $(DEPS) console
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium) || \
	  echo "SKIPPED browser tests: Debian's chromium is not installed and could not be installed (apt-get needs root and the Debian mirror)"
	@if command -v chromium >/dev/null; then \
	  DATABASE_URL= CHROMIUM_PATH="$$(command -v chromium)" npx --no-install vitest run --project browser; fi

docs-test: browser-test

# with TALLY_CLICKHOUSE_URL=chdb:<dir>, the embedded ClickHouse engine is installed first (engines/chdb)
# with server/node-flags' V8 flags and server/node-env's variables (each file says why)
run: $(DEPS) console $(if $(filter chdb:%,$(TALLY_CLICKHOUSE_URL)),engines)
	sh scripts/start-server.sh

cli: $(DEPS)
	node server/src/cli.ts $(ARGS)

mock: $(DEPS)
	node server/src/mock.ts

bench: $(DEPS) engines
	node bench/run.ts

# Real LLM instrumentation packages (AI SDK, Langfuse SDKs, LangChain, OpenInference, OpenLLMetry)
# sending calls to a fake provider on loopback and an in-process server. They live in
# instrumentations/ with their own package.json and lock file, so make run never installs them.
.PHONY: instrumentation-test instrumentation-test-pg

instrumentations/node_modules/.installed: instrumentations/package.json instrumentations/package-lock.json $(DEPS)
	cd instrumentations && npm ci --no-audit --no-fund && touch node_modules/.installed

instrumentation-test: instrumentations/node_modules/.installed
	npx --no-install tsc -p instrumentations/tsconfig.json --noEmit
	DATABASE_URL= npx --no-install vitest run --project instrumentations

# the same on the real PostgreSQL, when one answers
instrumentation-test-pg: instrumentations/node_modules/.installed
	@url="$${DATABASE_URL:-$(PG_TEST_URL)}"; \
	if node scripts/pg-reachable.ts "$$url"; then \
	  DATABASE_URL="$$url" npx --no-install vitest run --project instrumentations; \
	else echo "PostgreSQL not reachable at $$url: skipping the PostgreSQL run"; fi

# ClickHouse's engine embedded (npm chdb, ~550 MB with its prebuilt library from the registry),
# in engines/chdb/ with its own package.json and lock file: installed only for TALLY_CLICKHOUSE_URL=chdb:
# and the analytics tests, so a plain make run stays light.
.PHONY: engines analytics-test analytics-test-pg

# npm install (from the lock file, changing nothing), not npm ci: chdb names prebuilt engines for
# macOS that are not published, and npm ci refuses a lock file without them
engines/chdb/node_modules/.installed: engines/chdb/package.json engines/chdb/package-lock.json
	cd engines/chdb && npm install --no-audit --no-fund --no-save && touch node_modules/.installed

engines: engines/chdb/node_modules/.installed

# the ClickHouse path (change feed, exporter, schema) on the embedded engine, with the embedded database
analytics-test: $(DEPS) engines
	DATABASE_URL= npx --no-install vitest run --project analytics

# the same with PostgreSQL, when one answers
analytics-test-pg: $(DEPS) engines
	@url="$${DATABASE_URL:-$(PG_TEST_URL)}"; \
	if node scripts/pg-reachable.ts "$$url"; then \
	  DATABASE_URL="$$url" npx --no-install vitest run --project analytics; \
	else echo "PostgreSQL not reachable at $$url: skipping the PostgreSQL run"; fi
