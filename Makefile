# plansmith — see README.md. `make demo` and `make test` are all a new
# machine needs (with Go 1.26+; Node.js/npm for the end-to-end tests).

GO      ?= go
BIN     := build/plansmith
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: build test vet fmt-check unit e2e-deps demo bench fuzz clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/plansmith

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# e2e-deps installs the real Claude Code CLI (from npm) for the end-to-end
# tests; when npm is unreachable those tests skip and say so.
e2e-deps:
	@bash e2e/install-deps.sh || echo "make: end-to-end dependencies unavailable; e2e tests will skip"

unit:
	$(GO) test -race ./...

test: vet fmt-check e2e-deps unit

demo: build
	$(GO) run ./demo $(BIN)

bench: build
	bash bench/run.sh

fuzz:
	bash bench/fuzz.sh

clean:
	rm -rf build
