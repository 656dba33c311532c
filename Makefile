# Loom: every target installs what it needs on a fresh Debian machine with Swift.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test build release deps test-deps bench bench-peers bench-http check-deploy clean

deps:
	scripts/install-deps.sh build

test-deps:
	scripts/install-deps.sh test

## The server alone: LOOM_SERVER_ONLY=1 leaves the Swift client library and its OpenAPI
## generator out of the package (Package.swift), about half of a cold release build.
release: deps
	LOOM_SERVER_ONLY=1 $(SWIFT) build -c release --product loom

build: deps
	$(SWIFT) build --product loom

## Build and serve on $(PORT).
run: release
	.build/release/loom serve --port $(PORT)

## Every test: unit, text with real fonts, HTTP on a real socket, service, deploy checks, fuzz.
test: test-deps
	$(SWIFT) build --build-tests
	LOOM_BIN="$$($(SWIFT) build --show-bin-path)/loom" $(SWIFT) test
	python3 scripts/check-imports.py
	python3 scripts/check-links.py
	LOOM_BIN="$$($(SWIFT) build --show-bin-path)/loom" scripts/check-readme-snippets.sh
	scripts/check-deploy.sh
	scripts/run-system-tests.sh

## In-process benchmarks (decode / layout / encode medians) and cache scenarios.
bench: release
	python3 bench/gen_trees.py --out bench/trees
	.build/release/loom bench --trees-dir bench/trees

## Loom next to Taffy and Yoga on the same trees.
bench-peers: release
	python3 bench/gen_trees.py --out bench/trees
	python3 bench/peers.py --setup
	python3 bench/compare.py --loom .build/release/loom --trees bench/trees --out bench-results/compare.json

## HTTP load with wrk next to a bare libmicrohttpd server.
bench-http: release
	scripts/install-deps.sh test
	bench/http_load.sh .build/release/loom

check-deploy:
	scripts/check-deploy.sh

clean:
	rm -rf .build
