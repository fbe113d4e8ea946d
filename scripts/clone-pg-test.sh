#!/usr/bin/env bash
# A clone of the repository under a folder closed to every other user (mode
# 0700, as root's home is on Debian), and the PostgreSQL tests run from it:
# their scratch folders and scripts/postgres.sh are the clone's, so a
# cluster asked for inside it has to start anyway (pg_cluster.h), as in
# `cd ~ && git clone ... && make test` as root. The tests' executables are
# this build's (building the clone again would cost a whole build); what the
# case turns on is where the run keeps its files, not where it was compiled.
# PostgreSQL installed, a skipped test fails this one: a skip is what hid it.
#
#   clone-pg-test.sh SOURCE_ROOT PG_CLUSTER_TEST PEERS_TEST
set -euo pipefail
src=$1
pg_cluster_test=$(realpath "$2") peers_test=$(realpath "$3")  # before the cd into the clone

git -C "$src" rev-parse --verify --quiet HEAD >/dev/null || {
  echo "clone-pg-test: $src is not a git checkout: skipped"
  exit 77
}
home=$(mktemp -d /var/tmp/fenec-home-XXXXXX)
trap 'rm -rf "$home"' EXIT
chmod 0700 "$home"
clone=$home/clone
# The commit checked out in SOURCE_ROOT (a linked worktree too); --shared: no copy of its objects.
git clone --quiet --shared --no-checkout "$src" "$clone"
git -C "$clone" checkout --quiet --detach "$(git -C "$src" rev-parse HEAD)"

cd "$clone"
export FENEC_TEST_DIR=$clone/build/test-scratch FENEC_PG_SCRIPT=$clone/scripts/postgres.sh
mkdir -p "$FENEC_TEST_DIR"
installed=0
[ -x /usr/lib/postgresql/15/bin/postgres ] && installed=1

run() {
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if [ $rc -ne 0 ]; then
    printf '%s\n' "$out"
    echo "clone-pg-test: failed in $clone: $*" >&2
    exit 1
  fi
  if [ $installed -eq 1 ] && grep -q '^\[  SKIPPED \]' <<<"$out"; then
    printf '%s\n' "$out"
    echo "clone-pg-test: PostgreSQL is installed, yet a test was skipped in $clone: $*" >&2
    exit 1
  fi
  grep -E '^\[  (PASSED  |SKIPPED )\]' <<<"$out" | sed "s|^|$(basename "$1"): |"
}
run "$pg_cluster_test"
run "$peers_test" --gtest_filter='PostgresTest.*:PgCluster.*'
[ $installed -eq 1 ] || { echo "clone-pg-test: PostgreSQL 15 is not installed here: skipped"; exit 77; }
if ls "$FENEC_TEST_DIR" 2>/dev/null | grep -q .; then
  find "$FENEC_TEST_DIR" -maxdepth 2 >&2
  echo "clone-pg-test: the tests left files in $FENEC_TEST_DIR" >&2
  exit 1
fi
echo "clone-pg-test: the PostgreSQL tests passed from a clone under a 0700 folder ($home)"
