# vbrd — thin wrapper: the build is meson's, the tests are meson's and Tcl's.
#   make deps   install the Debian packages vbrd needs that are missing, without
#               recommends; leave their services disabled (scripts/deps.sh)
#   make        build into build/
#   make run    build, then run vbrd in a two-host lab with live traffic
#   make test   build, then run unit and integration tests
#   make bench  build, then replay pcaps through vbrd and l3fwd (and qos_sched,
#               and OVS-DPDK: bench-ovs), and 64 VRFs against one table
#               (bench-vrf); every ratio in cycles and, with valgrind, in
#               instructions (callgrind), a target met when both meet it.
#               ~36 min (~26 with BENCH_INSTR=0; tests/perf/README.md);
#               one bench at a time (a flock on the hugepages)
#   make bench-vrf   build, then 64 VRFs of 10 000 routes against one table of
#               640 000: per-packet cost, start-up, reload, memory (~9 GiB
#               of hugepages, reserved and given back)
#   make bench-failover   build, then 20 silent line cuts per failover scenario
#               (vbrd <-> vbrd, vbrd <-> FRR bfdd, the DR tunnel): outage and
#               detect-to-switch, median and max; path selection's faults;
#               20 HA takeovers by kill -9 and by SIGTERM of the active:
#               outage, median and max (not part of make test)
#   make bench-bgp   build, then a 1.2M-route table into vbrd: over FPM alone,
#               end to end from BIRD over eBGP through FRR, and into the Linux
#               kernel by FRR alone for reference (not part of make test)
#   make lab-virtio   build, then the virtio lab: an IDC edge and a region
#               gateway (two vbrds) joined by two lines over vhost-user through
#               Open vSwitch with DPDK, a host behind each; ping, BFD and the
#               failover group, a silent line cut under a stream and its outage,
#               the bring-up time (vm/virtio/virtio-lab.sh; HOLD=1 keeps it up
#               until Ctrl-C)
#   make bench-virtio   build, then what vbrd forwards through that path in Mpps,
#               64 B and IMIX 7:4:1 (64/570/1518), OVS-DPDK generating and
#               sinking, testpmd in vbrd's place for reference (not part of
#               make test)
#   make test-asan   build into build-asan (ASan + UBSan), run the unit tests
#               and the integration files of tests/asan-files.txt there (a part
#               that runs every feature's code); any sanitizer report fails it
#   make asan-coverage   with a coverage build (build-cov), what the whole
#               integration suite runs that make test-asan's part does not
#               (tests/asan-coverage.sh, ~20 min; not part of CI)
#   make unit-asan   the unit tests only, under the sanitizers
#   make fuzz   each libFuzzer target for FUZZ_SECONDS (default 30)
#   make format, make format-check   clang-format the tree / fail on a diff
#   make deb    the Debian package (vbrd, vbrctl, systemd units) into build-deb/,
#               lintian-checked (debian/make-deb.sh, debian/README.Debian)
#   make test-deb   build the package, then install, upgrade and purge it in an
#               mmdebstrap chroot (tests/pkg/test-deb.sh; not part of make test)

BUILD   ?= build
ASAN_BUILD ?= build-asan
FUZZ_SECONDS ?= 30

.PHONY: all deps build build-asan run test load-check unit test-asan unit-asan asan-coverage fuzz bench bench-ovs bench-vrf bench-failover bench-bgp \
	lab-virtio bench-virtio \
	clean format deb test-deb \
	format-check docs

all: build

# Installs what is missing, without recommends, and leaves the services of
# what it installed disabled and stopped (scripts/deps.sh); silent otherwise.
deps:
	@./scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: deps build
	./vm/lab/run-lab.sh

test: deps build
	./tests/run-tests.sh

# The load-test profiles of vm/load replayed through vbrd (about 10 s).
load-check: deps build
	./tests/run-tests.sh --no-unit load_profiles

unit: build
	meson test -C $(BUILD) --print-errorlogs

# ~36 min in all with the instruction counts (BENCH_INSTR_S=3 s each): bench.sh
# ~13, bench-ovs.sh ~5.5, scale.sh ~2, bench-qos.sh ~10, bench-vrf.sh ~6;
# BENCH_INSTR=0: ~26 min
bench: deps build
	./tests/perf/bench.sh
	./tests/perf/bench-ovs.sh
	./tests/perf/scale.sh
	./tests/perf/bench-qos.sh
	BUILD=$(BUILD) ./tests/perf/bench-vrf.sh

bench-vrf: deps build
	BUILD=$(BUILD) ./tests/perf/bench-vrf.sh

bench-ovs: deps build
	./tests/perf/bench-ovs.sh

bench-failover: deps build
	BUILD=$(BUILD) ./tests/perf/bench-failover.sh

bench-bgp: deps build
	BUILD=$(BUILD) ./tests/perf/bench-bgp.sh

lab-virtio: deps build
	./vm/virtio/virtio-lab.sh

bench-virtio: deps build
	BUILD=$(BUILD) ./vm/virtio/bench-virtio.sh

# -O2 -g: sanitizer reports with file:line; see meson.build for the two
# gcc warnings turned off in this build only.
$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --buildtype=debugoptimized -Db_sanitize=address,undefined

build-asan: $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

test-asan: deps build-asan
	BUILD=$(ASAN_BUILD) ./tests/run-sanitized.sh

unit-asan: build-asan
	BUILD=$(ASAN_BUILD) ./tests/run-sanitized.sh --unit-only

asan-coverage: deps
	./tests/asan-coverage.sh

fuzz: deps
	./tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-cov build-deb

deb: deps
	./debian/make-deb.sh

test-deb: deb
	./tests/pkg/test-deb.sh

# One .clang-format for the tree; CI runs format-check.
FORMAT_FILES = $(shell git ls-files '*.c' '*.h')

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: ok"

# The drop-reason table of app/README.md, from the code (a test compares them).
docs: build
	@awk -v table="$$($(BUILD)/app/vbrd --drop-reasons)" \
		'/<!-- drop-reasons: begin/ { print; print table; skip = 1; next } \
		 /<!-- drop-reasons: end/ { skip = 0 } !skip' app/README.md > app/README.md.new && \
		mv app/README.md.new app/README.md && echo "docs: app/README.md drop reasons updated"

# --- The VM image for IDC edges (vm/README.md) -------------------------------
#   make vm        a qcow2 image (Debian 12, kernel, vbrd's package, FRR,
#                  cloud-init, sshd) built with mmdebstrap into $(VM_IMAGE),
#                  from VBRD_DEB (default: make deb's newest build-deb/*.deb)
#   make vm-test   boot it under qemu (KVM if usable, else TCG) between two
#                  network namespaces: forwarding over DPDK's virtio PMD,
#                  vbrctl over SSH, a reload, the boot time to forwarding
#                  (~4 min under TCG; not part of make test or CI: its
#                  files are checked by tests/tcl/test_vm_image.tcl)
#   make vm-deps   the build machine's packages for both (vm/packages.txt)
VM_IMAGE ?= build/vm/vbrd.qcow2
VBRD_DEB ?=

.PHONY: vm vm-test vm-deps

vm-deps:
	@./scripts/deps.sh vm/packages.txt

vm: vm-deps $(if $(VBRD_DEB),,deb)
	@deb='$(VBRD_DEB)'; [ -n "$$deb" ] || deb=$$(ls -t build-deb/vbrd_*_amd64.deb 2>/dev/null | head -1); \
	[ -n "$$deb" ] || { echo "vm: no vbrd .deb (make deb, or VBRD_DEB=FILE)"; exit 1; }; \
	start=$$(date +%s); ./vm/image/build-image.sh $(VM_IMAGE) "$$deb" && \
	echo "vm: $(VM_IMAGE) in $$(( $$(date +%s) - start )) s"

vm-test: vm-deps
	@[ -f $(VM_IMAGE) ] || $(MAKE) vm
	@start=$$(date +%s); ./vm/test/vm-test.sh $(VM_IMAGE); rc=$$?; \
	echo "vm-test: $$(( $$(date +%s) - start )) s"; exit $$rc
