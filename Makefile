# noora-hooks: every task a developer or CI runs. Needs only Go (and python3 for
# Python plugins).
GO       ?= go
BIN      ?= bin/noora-hooks
FUZZTIME ?= 20s

.PHONY: all build test race vet fmt demo bench fuzz clean

all: build

## build: a static binary: without cgo it starts about 0.5 ms sooner per exec (docs/performance.md).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) .

## test: vet, then every test with the race detector.
test: vet
	$(GO) test -race -count=1 ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

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

clean:
	rm -rf bin
