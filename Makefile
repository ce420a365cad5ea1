# plansmith — see README.md. `make demo` and `make test` are all a new
# machine needs (with Go 1.26+; Node.js/npm for the end-to-end tests).

GO      ?= go
BIN     := build/plansmith
# One version everywhere: the plugin's (.claude-plugin/plugin.json) plus the
# commit; `plansmith version`, `doctor` and the saved plan show it.
VERSION ?= $(shell sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' .claude-plugin/plugin.json | head -n 1)
COMMIT  ?= $(shell c=$$(git rev-parse --short=7 HEAD 2>/dev/null) && { git diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; echo $$c; })
LDFLAGS := -s -w -X github.com/plansmith/plansmith.version=$(VERSION) -X github.com/plansmith/plansmith.commit=$(COMMIT)
# The platforms `make dist` builds for (GOOS/GOARCH).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
# DISTDIR is where `make dist` writes (the e2e test points it at a temp folder):
# it replaces DISTDIR/plansmith and DISTDIR/.claude-plugin/marketplace.json
# (building in DISTDIR/.plansmith.new) and leaves anything else there as it is
# (review CQ: it removed the whole folder).
DISTDIR ?= dist
DIST    := $(DISTDIR)/plansmith

.PHONY: build dist test vet fmt-check go-test e2e-deps demo bench fuzz validators policy-rates clean

# CGO_ENABLED=0: cobra's flags link the net package, whose cgo resolver would
# make the binary load libc dynamically on every hook call (~0.3 ms).
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/plansmith

# dist assembles a self-contained plugin tree in dist/plansmith: the plugin's
# files and stripped static binaries for every platform with their
# SHA256SUMS, no sources. dist/.claude-plugin/marketplace.json makes dist/ a
# marketplace: claude plugin marketplace add ./dist && claude plugin install plansmith@plansmith
# The tree is made in $(DISTNEW) and put in place when whole: Claude Code runs
# a folder marketplace's plugin from that folder, so a session's hooks go on
# running the old tree while the binaries build, not a half-made one.
DISTNEW := $(DISTDIR)/.plansmith.new
dist:
	rm -rf "$(DISTNEW)"
	mkdir -p "$(DISTNEW)/.claude-plugin" "$(DISTNEW)/commands" "$(DISTNEW)/hooks" "$(DISTNEW)/bin/prebuilt"
	set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "build $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" \
			-o "$(DISTNEW)/bin/prebuilt/plansmith-$$os-$$arch$$ext" ./cmd/plansmith; \
	done
	cd "$(DISTNEW)/bin/prebuilt" && { sha256sum plansmith-* 2>/dev/null || shasum -a 256 plansmith-*; } > SHA256SUMS
	cp .claude-plugin/plugin.json "$(DISTNEW)/.claude-plugin/"
	cp commands/*.md "$(DISTNEW)/commands/"
	cp hooks/hooks.json "$(DISTNEW)/hooks/"
	cp bin/plansmith "$(DISTNEW)/bin/"
	cp .gitattributes "$(DISTNEW)/"
	for f in LICENSE README.md; do [ ! -f $$f ] || cp $$f "$(DISTNEW)/"; done
	rm -rf "$(DIST)"
	mv "$(DISTNEW)" "$(DIST)"
	mkdir -p "$(DISTDIR)/.claude-plugin"
	sed 's#"source": "./"#"source": "./plansmith"#' .claude-plugin/marketplace.json > "$(DISTDIR)/.claude-plugin/marketplace.json"
	grep -q '"source": "./plansmith"' "$(DISTDIR)/.claude-plugin/marketplace.json"
	@echo "$$(du -sh "$(DIST)" | cut -f1) in $(DIST) (all platforms)"

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# e2e-deps installs the real Claude Code and Codex CLIs and the hook types (from npm)
# into .cache/ for the end-to-end tests; exit 3 means the npm registry is
# unreachable, and only then do those tests skip (saying so).
e2e-deps:
	@rc=0; bash .ci/e2e-deps || rc=$$?; \
	if [ $$rc -eq 3 ]; then echo "make: npm registry unreachable; end-to-end tests will skip"; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# go-test runs every Go test, the end-to-end ones included, with the race
# detector; .ci/go-test keeps race-built binaries from sleeping 1 s at exit
# and puts the tests' temporary files in memory where the machine allows it.
# -parallel 6: the end-to-end tests mostly wait on the CLI and the scripted
# model, so more of them than the 2 cores run at once.
go-test:
	sh .ci/go-test $(GO) -parallel 6 ./...

test: vet fmt-check e2e-deps go-test

demo: build
	$(GO) run ./demo $(BIN)

# bench times the hooks of the plugin tree `make dist` makes, installed as
# Claude Code installs a plugin (a copy); PLUGIN=. times this checkout.
bench: build dist
	PLUGIN=$${PLUGIN:-$(DISTDIR)/plansmith} bash bench/run.sh

# validators prints how the phase checks and the leakage scan judge the
# corpora in testdata/validators (real plans and non-plans, well-formed
# answers) and fails when a threshold of issue 19 is missed.
validators:
	$(GO) test -count=1 -v -run Corpus ./phases ./gate | grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS$$'

fuzz:
	bash bench/fuzz.sh

# policy-rates prints how the read-only policy does on its corpora: escapes
# among the dangerous commands (must be 0) and the share of ordinary ones
# allowed (must be >= 99%), with each ordinary command it refuses.
policy-rates:
	@out=$$($(GO) test -count=1 -run 'TestCorpusRates|TestAdversarialCorpus' -v ./hooks/policy/ 2>&1); rc=$$?; \
	echo "$$out" | grep -E 'dangerous:|ordinary|escape|Error|^(ok|FAIL|--- )'; exit $$rc

clean:
	rm -rf build dist bin/native
