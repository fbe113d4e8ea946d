#!/usr/bin/env bash
# The fenec CLI end to end: FenecQL statements answered as fenec-server's
# POST /query answers them, from arguments, files and stdin, with parameters;
# check and branch; and every error path's exit code and stderr.
set -euo pipefail
fenec=$(realpath "$1")  # absolute: some checks run from inside the scratch folder
root=${FENEC_TEST_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$root"
dir=$(mktemp -d -p "$root" fenec-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
db=$dir/db
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect WHAT EXPECTED_STDOUT fenec-args...: exit 0, stdout exactly as given, nothing on stderr.
expect() {
  local what=$1 want=$2 got rc=0
  shift 2
  got=$("$fenec" "$@" 2>"$dir/err") || rc=$?
  [ "$rc" = 0 ] || fail "$what: exit $rc, stderr: $(cat "$dir/err")"
  [ "$got" = "$want" ] || fail "$what: got '$got', want '$want'"
  [ ! -s "$dir/err" ] || fail "$what: stderr: $(cat "$dir/err")"
}
# refuse WHAT CODE STDERR_REGEX fenec-args...: exit CODE, stderr one line matching the regex.
refuse() {
  local what=$1 code=$2 pattern=$3 rc=0
  shift 3
  "$fenec" "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" = "$code" ] || fail "$what: exit $rc, want $code (stderr: $(cat "$dir/err"))"
  [ "$(wc -l <"$dir/err")" = 1 ] || fail "$what: want one line on stderr, got: $(cat "$dir/err")"
  grep -Eq -- "$pattern" "$dir/err" || fail "$what: stderr '$(cat "$dir/err")' does not match '$pattern'"
}
count() { expect "count: $1" "{\"columns\":[\"count(*)\"],\"rows\":[[$2]]}" "$db" 'AGGREGATE people COUNT(*)'; }

"$fenec" --help | grep -q "fenec check DIR" || fail "--help: synopsis"
"$fenec" --help | grep -q "stops at the first statement that fails" || fail "--help: the stop rule"

# A missing folder is an error unless --create is given; nothing is made.
refuse "missing folder" 1 "^fenec: .*no database.*--create" "$db" 'FIND people'
[ ! -e "$db" ] || fail "a missing folder was created without --create"
expect "create" '{"created":"people"}' --create "$db" \
  'CREATE COLLECTION people (name TEXT @unique, age INT, score FLOAT, emb VECTOR(2))'
expect "put one" '{"ids":[1]}' "$db" "PUT people {name: 'ann', age: 41, score: 1.5, emb: [1, 2]}"
expect "put two" '{"ids":[2,3]}' "$db" "PUT people [{name: 'bob', age: 30}, {name: 'cy', age: 25}]"
expect "get" '{"id":1,"doc":{"name":"ann","age":41,"score":1.5,"emb":[1,2]}}' "$db" 'GET people 1'
expect "find where limit" '{"rows":[{"id":1,"doc":{"name":"ann","age":41,"score":1.5,"emb":[1,2]}}],"count":1,"next":1}' \
  "$db" 'FIND people WHERE age > 26 LIMIT 1'
expect "find the next page" '{"rows":[{"id":2,"doc":{"name":"bob","age":30,"score":null,"emb":null}}],"count":1}' \
  "$db" 'FIND people WHERE age > 26 AFTER 1 LIMIT 1'
expect "find where" '{"rows":[{"id":3,"doc":{"name":"cy","age":25,"score":null,"emb":null}}],"count":1}' \
  "$db" 'FIND people WHERE age < 30'
expect "aggregate" '{"columns":["count(*)","sum(age)","min(age)","max(age)"],"rows":[[3,96,25,41]]}' \
  "$db" 'AGGREGATE people COUNT(*), SUM(age), MIN(age), MAX(age)'
count "three" 3

# Parameters, as the server's "params": positional and named.
expect "params array" '{"rows":[{"id":2,"doc":{"name":"bob","age":30,"score":null,"emb":null}}],"count":1}' \
  "$db" --params '[26, 35]' 'FIND people WHERE age >= $1 AND age <= $2'
expect "params object" '{"id":3,"doc":{"name":"cy","age":25,"score":null,"emb":null}}' \
  "$db" 'GET people $id' --params '{"id": 3}'

# Several statements: arguments, ';'-separated scripts, files and stdin, run in the order given.
cat >"$dir/more.fql" <<'EOF'
-- a comment; its ';' does not end a statement
PUT people {name: 'd;e', age: 50};
GET people 4
  ;
-- nothing after the last ';' but this comment
EOF
expect "args, file, arg in order" "$(printf '%s\n' \
  '{"columns":["count(*)"],"rows":[[3]]}' \
  '{"ids":[4]}' \
  '{"id":4,"doc":{"name":"d;e","age":50,"score":null,"emb":null}}' \
  '{"deleted":4}')" \
  "$db" 'AGGREGATE people COUNT(*)' -f "$dir/more.fql" 'DELETE people 4'
expect "stdin" "$(printf '%s\n' '{"deleted":3}' '{"columns":["count(*)"],"rows":[[2]]}')" \
  "$db" -f - <<<'DELETE people 3; AGGREGATE people COUNT(*);'
expect "empty input runs nothing" "" "$db" -f - </dev/null
count "after deletes" 2

# Usage errors: exit 2, one line, nothing run.
refuse "bad flag" 2 "^fenec: .*--bogus.*see fenec --help" "$db" --bogus 'FIND people'
refuse "no statement" 2 "^fenec: nothing to run" "$db"
refuse "no folder" 2 "^fenec: DIR is required"
refuse "params not JSON" 2 "^fenec: --params is not JSON" "$db" --params '[1' 'GET people $1'
refuse "params with trailing content" 2 "^fenec: --params is not JSON" "$db" --params '[1], "x": 2' 'GET people $1'
refuse "params for two statements" 2 "^fenec: --params is for one statement" "$db" --params '[1]' 'GET people $1; GET people 2'
refuse "unreadable file" 2 "^fenec: cannot read -f" "$db" -f "$dir/absent.fql"
refuse "a folder as a file" 2 "^fenec: cannot read -f" "$db" -f "$dir"
refuse "check: bad flag" 2 "see fenec check --help" check "$db" --bogus

# Statements the service rejects: its JSON error on stderr, exit 1.
refuse "parse error" 1 '^\{"error":\{"code":"parse",.*"where":"statement 1:[0-9]+"' "$db" 'FIND people WHERE'
refuse "unknown collection" 1 '^\{"error":\{"code":"unknown_collection"' "$db" 'FIND nobody'
refuse "unknown field" 1 '^\{"error":\{"code":"unknown_field"' "$db" 'FIND people WHERE height > 1'
refuse "missing document" 1 '^\{"error":\{"code":"not_found"' "$db" 'GET people 99'
refuse "bad params" 1 '^\{"error":\{"code":"type",.*"where":"params.id"' "$db" --params '{"id": "x"}' 'GET people $id'
refuse "missing params" 1 '^\{"error":\{"code":"params"' "$db" 'GET people $1'
refuse "create twice" 1 '^\{"error":\{"code":"exists"' "$db" 'CREATE COLLECTION people (x INT)'
# A @unique clash: nothing of the put lands, not even its documents without a clash.
refuse "unique clash" 1 '^\{"error":\{"code":"unique"' "$db" "PUT people [{name: 'zed', age: 1}, {name: 'ann', age: 2}]"
count "nothing landed" 2
expect "zed not landed" '{"rows":[],"count":0}' "$db" "FIND people WHERE name = 'zed'"
# The run stops at the first failure: what ran before it stays, what follows does not run.
cat >"$dir/stops.fql" <<'EOF'
PUT people {name: 'eve', age: 22};
PUT people {name: 'bob', age: 23};
PUT people {name: 'fay', age: 24}
EOF
refuse "a file stops at its first failure" 1 '^\{"error":\{"code":"unique"' "$db" -f "$dir/stops.fql"
[ "$(cat "$dir/out")" = '{"ids":[5]}' ] || fail "the statements before the failure: stdout '$(cat "$dir/out")'"
expect "before the failure: landed" '{"rows":[{"id":5,"doc":{"name":"eve","age":22,"score":null,"emb":null}}],"count":1}' \
  "$db" "FIND people WHERE age < 25"
refuse "arguments stop too" 1 '^\{"error":\{"code":"parse"' "$db" 'DELETE people 5' 'FIND' "PUT people {name: 'gus'}"
count "after the stops" 2
# Bad values at the boundary: a byte that is not UTF-8 (refused before it is
# wrapped in JSON, where it would turn into U+FFFD), a lone surrogate escape, a
# float past a double's range. Nothing lands.
refuse "a statement not UTF-8" 1 '^\{"error":\{"code":"utf8",.*"where":"statement 1:23","offset":22' \
  "$db" "$(printf "PUT people {name: 'ann\xff'}")"
refuse "a lone surrogate" 1 '^\{"error":\{"code":"parse",.*high surrogate' "$db" "PUT people {name: '\\uD800'}"
refuse "a float past a double" 1 '^\{"error":\{"code":"type",.*64-bit float' "$db" "PUT people {name: 'hal', score: 1e400}"
count "no bad value landed" 2

# check and branch open the storages directly. The first argument alone names
# them: a folder called check is ./check, and `check` as a statement is FenecQL's to refuse.
"$fenec" check "$db" | grep -q "^people: 2 documents" || fail "check"
"$fenec" check "$db" | grep -q "^indexes: 1 branch storages, 1 loaded" || fail "check: the index's branch"
refuse "check: missing folder" 1 "^fenec: .*no database" check "$dir/absent"
# The @unique name index, opened alone from its own folder: ann and bob live, cy, d;e, eve deleted.
"$fenec" branch "$db/Indexes/c0.f0.unique" | grep -q "^entries 2," || fail "branch alone"
[ "$("$fenec" branch "$db/Indexes/c0.f0.unique" --list | tail -n +2)" = "$(printf '1\t"ann"\n2\t"bob"')" ] ||
  fail "branch --list"
(cd "$dir" && expect "a folder named check" '{"created":"t"}' --create ./check 'CREATE COLLECTION t (a INT)')
(cd "$dir" && "$fenec" check check | grep -q "^t: 0 documents") || fail "check of a folder named check"
refuse "check is no statement" 1 '^\{"error":\{"code":"parse"' "$db" check
# An @hnsw field: NEAR answers from the CLI; check shows the index, and its
# branch opened alone loads the graph the exit's checkpoint wrote.
expect "create @hnsw" '{"created":"docs"}' "$db" 'CREATE COLLECTION docs (tag TEXT, emb VECTOR(2) @hnsw(cosine))'
expect "put vectors" '{"ids":[1,2,3]}' "$db" "PUT docs [{tag: 'x', emb: [1, 0]}, {tag: 'y', emb: [0, 1]}, {tag: 'z', emb: [1, 1]}]"
"$fenec" "$db" 'FIND docs NEAR emb [0, 2] LIMIT 1' | grep -q '^{"rows":\[{"id":2,"distance":' || fail "NEAR"
refuse "NEAR without @hnsw" 1 '^\{"error":\{"code":"index"' "$db" 'FIND people NEAR emb [1, 2]'
refuse "NEAR of the wrong dimension" 1 '^\{"error":\{"code":"dim"' "$db" 'FIND docs NEAR emb [1, 2, 3]'
"$fenec" check "$db" | grep -q "^  emb vector(2) @hnsw(cosine)$" || fail "check: the @hnsw field"
"$fenec" check "$db" | grep -q "^vectors: 1 @hnsw indexes, 3 documents" || fail "check: the graph"
"$fenec" branch "$db/Indexes/c1.f1.hnsw" | grep -q "^graph: 3 nodes, 3 documents, 0 tombstones" || fail "hnsw branch alone"
[ "$("$fenec" branch "$db/Indexes/c1.f1.hnsw" --list | tail -n 3)" = "$(printf '1\n2\n3')" ] || fail "hnsw branch --list"

# check says which case each journal is in (engine/doc/journal.md, "Recovery").
"$fenec" check "$db" | grep -q "^journal $db: clean" || fail "check: a clean journal"
"$fenec" check "$db" | grep -q "^journal $db/Indexes/c0.f0.unique: clean" || fail "check: a branch's clean journal"
# Records past the checkpoint: the folder as one run left it (its checkpoint),
# with the next run's journal file, whose three puts each say the one before was synced.
j=$dir/j
expect "journal: create" '{"created":"t"}' --create "$j" 'CREATE COLLECTION t (a INT)'
cp -a "$j" "$dir/j0"
expect "journal: puts" '{"ids":[1]}
{"ids":[2]}
{"ids":[3]}' "$j" 'PUT t {a: 1}; PUT t {a: 2}; PUT t {a: 3}'
last=$(ls "$j/Journals" | sort | tail -n 1)
reset_j() { rm -rf "$j" && cp -a "$dir/j0" "$j" && cp "$dir/j.next" "$j/Journals/$last"; }
cp "$j/Journals/$last" "$dir/j.next"
reset_j
"$fenec" check "$j" | grep -q "^journal $j: clean, 3 records after the checkpoint" || fail "check: records to replay"
reset_j
printf 'torn' >>"$j/Journals/$last"  # a write cut short, past the zeros written ahead
rc=0; "$fenec" check "$j" >"$dir/out" 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "check: a torn tail exits 3, got $rc: $(cat "$dir/out")"
grep -q "^journal $j: torn tail, .* discarded after LSN 4" "$dir/out" || fail "check: torn tail: $(cat "$dir/out")"
grep -q "^t: 3 documents" "$dir/out" || fail "check: a torn tail recovers every record: $(cat "$dir/out")"
reset_j
# The second put's payload garbled: the third says the second was durable.
at=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); o=0
o += 44 + struct.unpack_from("<I", d, o + 8)[0]
print(o + 45)' "$j/Journals/$last")
printf '#' | dd of="$j/Journals/$last" bs=1 seek="$at" conv=notrunc status=none
rc=0; "$fenec" check "$j" >"$dir/out" 2>"$dir/err" || rc=$?
[ "$rc" = 4 ] || fail "check: mid-log corruption exits 4, got $rc: $(cat "$dir/out" "$dir/err")"
grep -q "^journal $j: mid-log corruption in $j/Journals/$last at byte $((at - 45)) (bad checksum.*LSN 3 was durable.* 1 records of this storage after it" "$dir/out" ||
  fail "check: mid-log corruption: $(cat "$dir/out")"
grep -q "not opened" "$dir/err" || fail "check: mid-log corruption is not opened: $(cat "$dir/err")"
rc=0; "$fenec" check "$j" >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "check changed a corrupt folder"
"$fenec" check --help | grep -q "4 mid-log corruption" || fail "check --help: exit codes"
# A record of a newer format version (engine/doc/journal.md, "Versions"): the
# second put's version byte 9, its complement beside it. Refused by check and
# by an open, naming the version and what this build reads; nothing dropped.
reset_j
python3 -c 'import struct,sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); o=0
o += 44 + struct.unpack_from("<I", d, o + 8)[0]
d[o + 4] = 9; d[o + 5] = 0xff ^ 9
open(p, "wb").write(d)' "$j/Journals/$last"
cp "$j/Journals/$last" "$dir/j.future"
rc=0; "$fenec" check "$j" >"$dir/out" 2>"$dir/err" || rc=$?
[ "$rc" = 1 ] || fail "check: a newer format exits 1, got $rc: $(cat "$dir/out" "$dir/err")"
grep -q "^journal $j: NotSupported: .*format version 9; this build reads versions 1 to 3" "$dir/out" ||
  fail "check: a newer format: $(cat "$dir/out")"
grep -q "newer format; not opened" "$dir/err" || fail "check: a newer format is not opened: $(cat "$dir/err")"
refuse "open: a newer format" 1 "format version 9; this build reads versions 1 to 3" "$j" 'AGGREGATE t COUNT(*)'
cmp -s "$j/Journals/$last" "$dir/j.future" || fail "a refused open changed the journal"
[ -z "$(ls "$j/Journals" | grep dropped)" ] || fail "a newer format's records were set aside"
echo "fenec CLI: ok"
