# noora-hooks: every task a developer or CI runs. Needs only Go (and python3 for
# Python plugins).
GO       ?= go
BIN      ?= bin/noora-hooks
FUZZTIME ?= 20s
E2E_CACHE ?= $(HOME)/.cache/noora-hooks-e2e
E2E_AGENTS ?= claude,gemini,codex

.PHONY: all build test race vet fmt demo bench fuzz e2e clean

all: build

## build: a static binary: without cgo it starts about 0.5 ms sooner per exec (docs/performance.md).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) .

## test: vet (Linux, macOS and FreeBSD), then every test with the race detector.
test: vet
	$(GO) test -race -count=1 ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=freebsd $(GO) vet ./...

## demo: run exec on the example configuration in examples/.
demo: build
	@./examples/demo.sh $(BIN)

## bench: the benchmarks that back the figures in docs/performance.md (a few minutes).
bench:
	$(GO) run ./bench
	$(GO) test -run='^$$' -bench=. -benchtime=20x -count=1 ./plugins/ ./outbound/ ./runner/
	$(GO) test -run='^$$' -bench=. -count=1 ./observe/
	$(GO) test -run='^$$' -bench=ServeStreamDeltas -benchtime=100000x -count=1 .
	$(GO) test -run='^$$' -bench=AcceptManyNewHooks -benchtime=3x -count=1 ./cli/

## fuzz: each fuzz target for FUZZTIME.
fuzz:
	@$(GO) list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

## e2e: drive the real Claude Code, Gemini CLI and Codex CLI (pinned, installed from npm
## into E2E_CACHE the first time; needs node and npm) offline against a local fake model,
## with noora-hooks as their one hook: block, rewrite, context, stop, pass-through. Not
## part of `make test`; a few minutes.
e2e: build
	$(GO) run ./e2e -bin $(BIN) -cache $(E2E_CACHE) -agents $(E2E_AGENTS)

clean:
	rm -rf bin
