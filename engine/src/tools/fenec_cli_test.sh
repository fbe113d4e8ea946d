#!/usr/bin/env bash
# The fenec CLI end to end: create, put, get, count, scan, aggregate, delete, check, branch, bad input.
set -euo pipefail
fenec=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db=$dir/db
fail() { echo "FAIL: $*" >&2; exit 1; }

"$fenec" --help | grep -q "data folder" || fail "--help"
"$fenec" create "$db" people name:text:unique age:int score:float emb:vector:2
[ "$("$fenec" put "$db" people ann 41 1.5 1,2)" = 1 ] || fail "first id"
[ "$("$fenec" put "$db" people bob 30 null 3,4)" = 2 ] || fail "second id"
"$fenec" get "$db" people 1 | grep -q '"name": "ann", "age": 41' || fail "get"
[ "$("$fenec" count "$db" people)" = 2 ] || fail "count"
[ "$("$fenec" scan "$db" people --where 'age > 35' | wc -l)" = 1 ] || fail "scan filter"
"$fenec" aggregate "$db" people age | grep -q "count=2 sum=71 min=41 max=41" && fail "aggregate max"
"$fenec" aggregate "$db" people age | grep -q "count=2 sum=71 min=30 max=41" || fail "aggregate"
set +e
"$fenec" put "$db" people ann 1 1 1,1 2>/dev/null; rc=$?
[ $rc = 1 ] || fail "duplicate @unique should exit 1, got $rc"
"$fenec" put "$db" people carl notanint 1 1,1 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "bad value should exit 2, got $rc"
"$fenec" scan "$db" people --bogus 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "bad flag should exit 2, got $rc"
[ "$("$fenec" scan "$db" people --bogus 2>&1 | wc -l)" = 1 ] || fail "bad flag: one line"
"$fenec" get "$db" nope 1 2>/dev/null; rc=$?
[ $rc = 1 ] || fail "missing collection should exit 1, got $rc"
"$fenec" count "$dir/absent" people 2>/dev/null; rc=$?
[ $rc = 1 ] || fail "missing folder should exit 1, got $rc"
set -e
"$fenec" delete "$db" people 2
[ "$("$fenec" count "$db" people)" = 1 ] || fail "count after delete"
"$fenec" check "$db" | grep -q "^people: 1 documents" || fail "check"
"$fenec" check "$db" | grep -q "^indexes: 1 branch storages, 1 loaded" || fail "check: the index's branch"
# The @unique name index, opened alone from its own folder: ann is there, bob was deleted.
"$fenec" branch "$db/Indexes/c0.f0.unique" | grep -q "^entries 1," || fail "branch alone"
[ "$("$fenec" branch "$db/Indexes/c0.f0.unique" --list | tail -1)" = "$(printf '1\t"ann"')" ] || fail "branch --list"
echo "fenec CLI: ok"
