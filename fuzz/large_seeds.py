#!/usr/bin/env python3
"""Large seeds for the fuzz targets whose bugs live at large sizes
(work growing faster than the request, memory not bounded by a limit).

libFuzzer grows its inputs a few bytes at a time, so a short run never gets
near a document of 100 000 keys; these seeds start it there. They are
generated (deterministically) into the run's corpus folder, not committed.

  large_seeds.py OUT_DIR TARGET     writes OUT_DIR/large-* for TARGET
"""
import os
import sys

MAX = 1 << 20  # scripts/fuzz.sh's -max_len for these targets


def doc_keys(n):
    return "{" + ", ".join(f"k{i}: 1" for i in range(n)) + "}"


def statements():
    """FenecQL texts of many keys, fields, parameters, documents and tokens."""
    yield "keys", "PUT items " + doc_keys(60000)
    yield "dup-key", "PUT items " + doc_keys(60000)[:-1] + ", k0: 2}"
    yield "fields", "CREATE COLLECTION big (" + ", ".join(f"f{i} INT" for i in range(50000)) + ")"
    yield "params", "FIND items WHERE " + " AND ".join(f"age = ${i + 1}" for i in range(40000))
    yield "docs", "PUT plain [" + ", ".join(f"{{n: {i}}}" for i in range(60000)) + "]"
    yield "vector", "PUT items {emb: [" + ",".join(str(i % 10) for i in range(400000)) + "]}"


def json_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bodies():
    """(endpoint, body) pairs: /query, /docs/{c}, /batch bodies near MAX bytes."""
    for name, st in statements():
        yield name, "query", "/query", '{"statement": ' + json_str(st) + "}"
    n = 40000
    yield "params-bound", "query", "/query", ('{"statement": ' + json_str(
        "FIND items WHERE " + " AND ".join(f"age = ${i + 1}" for i in range(n))) + ', "params": [' +
        ",".join("1" for _ in range(n)) + "]}")
    yield "named-bound", "query", "/query", ('{"statement": ' + json_str(
        "FIND items WHERE " + " AND ".join(f"age = $p{i}" for i in range(n // 2))) + ', "params": {' +
        ",".join(f'"p{i}": 1' for i in range(n // 2)) + "}}")
    yield "json-docs", "docs", "/docs/plain", "[" + ",".join(f'{{"n": {i}, "s": "x"}}' for i in range(40000)) + "]"
    yield "json-keys", "docs", "/docs/plain", "[{" + ",".join(f'"k{i}": 1' for i in range(50000)) + "}]"
    yield "json-dup", "docs", "/docs/plain", '[{"n": 1' + ', "s": "x"' * 80000 + "}]"
    yield "batch", "batch", "/batch", ('{"statements": [' + ",".join(
        '{"statement": "PUT plain $1", "params": [{"n": %d}]}' % i for i in range(15000)) + "]}")


def main():
    out, target = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    seeds = {}
    if target in ("parser", "lexer"):
        for name, st in statements():
            seeds[name] = st.encode()
    elif target == "request":
        # First byte: 0 /query, 1 /docs/items (+4 per collection: 9 is plain), 2 /batch; +16 tight limits.
        pick = {"query": 0, "docs": 9, "batch": 2}
        for name, kind, _, body in bodies():
            seeds[name] = bytes([pick[kind]]) + body.encode()
            seeds[name + "-tight"] = bytes([pick[kind] | 16]) + body.encode()
    elif target == "handler":
        for name, _, path, body in bodies():
            seeds[name] = f"POST\n{path}\nBearer fuzz-token\n{body}".encode()
    for name, data in seeds.items():
        if len(data) > MAX:
            sys.exit(f"large_seeds.py: seed {target}/{name} is {len(data)} bytes, over {MAX}")
        with open(os.path.join(out, "large-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
