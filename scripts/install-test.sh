#!/usr/bin/env bash
# `meson install` into a staging folder, as `make install PREFIX=...` does
# into a real one: every tool answers --version with the project's version
# and commit, and a program builds against the installed libfenec with
# nothing but `pkg-config fenec`, then runs (a put and a get).
#
#   install-test.sh BUILD VERSION CXX...
set -euo pipefail
build=$1 version=$2
shift 2
cxx=("$@")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$stage" >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"]); print(o["libdir"])')
libdir=$(sed -n 2p <<<"$prefix")
prefix=$(sed -n 1p <<<"$prefix")
root=$stage$prefix
case $libdir in /*) lib=$stage$libdir ;; *) lib=$root/$libdir ;; esac

for tool in iobench fenec fenec-server; do
  out=$("$root/bin/$tool" --version)
  [[ $out =~ ^$tool\ ${version//./\\.}\ \(commit\ [^\)]+\)$ ]] || {
    echo "install-test: $tool --version printed '$out', expected '$tool $version (commit ...)'" >&2
    exit 1
  }
done

# pkg-config's prefix is the configured one; the staged tree stands in for it.
pc=(pkg-config --define-variable=prefix="$root" --define-variable=libdir="$lib")
export PKG_CONFIG_PATH=$lib/pkgconfig
[ "$("${pc[@]}" --modversion fenec)" = "$version" ] || { echo "install-test: fenec.pc's version is not $version" >&2; exit 1; }
cat >"$stage/use.cc" <<'CC'
#include <fenec/database.h>
#include <cstdio>
int main(int, char** argv) {
  auto db = fenec::Database::Open(argv[1], fenec::Options{});
  if (!db.ok()) return std::printf("%s\n", db.status().ToString().c_str()), 1;
  auto users = (*db)->CreateCollection("users", {{fenec::Field::Text("email"), fenec::Field::Int("age")}});
  auto id = (*db)->Put(*users, {"ann@example.com", 41});
  auto doc = (*db)->Get(*users, *id);
  return doc.ok() && (*doc)[1].int_value() == 41 ? 0 : 1;
}
CC
# shellcheck disable=SC2046
"${cxx[@]}" -std=c++20 -o "$stage/use" "$stage/use.cc" $("${pc[@]}" --cflags --libs fenec) -Wl,-rpath,"$lib"
mkdir "$stage/db"
"$stage/use" "$stage/db/shop"
echo "install-test: iobench, fenec, fenec-server --version; a program built with pkg-config fenec ran"
