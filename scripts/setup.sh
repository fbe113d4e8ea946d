#!/usr/bin/env bash
# Installs every Debian package fenec needs to build, test and benchmark.
# Idempotent: checks with dpkg first and only calls apt-get for what is missing,
# so a second run costs well under a second. Run as root (CI and the dev
# machines are root); elsewhere it prints the apt-get line to run.
set -euo pipefail

PKGS=(
  build-essential g++ meson ninja-build pkg-config git
  clang-14  # make test: the engine's lock rules, checked by clang's -Wthread-safety
  # make fuzz: libFuzzer and clang's ASan/UBSan runtimes (libclang_rt.*), and
  # llvm-symbolizer for the file:line in their reports
  libclang-rt-14-dev llvm-14
  liburing-dev libfmt-dev libcli11-dev libbenchmark-dev libgtest-dev libgmock-dev
  libgnuplot-iostream-dev gnuplot-nox libboost-dev libboost-iostreams-dev
  libboost-system-dev libboost-filesystem-dev
  libsqlite3-dev sqlite3 libsimdjson-dev libcpp-httplib-dev libxxhash-dev
  libabsl-dev libhnswlib-dev fio jq valgrind procps util-linux e2fsprogs
  xfsprogs btrfs-progs  # fs-bench: xfs and btrfs on loop devices beside ext4
  postgresql-15 postgresql-client-15 libpq-dev  # the PostgreSQL arms (a scratch cluster on loopback)
  wrk  # requests-bench: the check of its HTTP client
  librocksdb-dev rocksdb-tools  # the RocksDB arms, and db_bench to check them against
  libre2-dev libpcre2-dev  # MM-4 on the matchers people share across threads
  ccache  # meson compiles through it when present: a second build of the same sources is a cache hit
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: missing packages: ${missing[*]}" >&2
  echo "setup.sh: run as root, or: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists may be stale or absent on a fresh machine: update once, then install.
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
