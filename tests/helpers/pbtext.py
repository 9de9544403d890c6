#!/usr/bin/env python3
# tests/helpers/pbtext.py: decode a protobuf message with protoc and print it
# as JSON (every field a list, nested messages objects), so the shell tests
# can check OTLP and pprof output without a protobuf library:
#   pbtext.py PROTO_DIR PROTO_FILE MESSAGE [--gunzip] < IN > OUT.json
import gzip, json, subprocess, sys


def unescape(s):
    # protoc's text format: C escapes, octal bytes; the result is UTF-8 text
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
            continue
        n = s[i + 1]
        if n in '01234567':
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in '01234567':
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
            continue
        out += {'n': b'\n', 't': b'\t', 'r': b'\r', '"': b'"', "'": b"'", '\\': b'\\'}.get(n, n.encode())
        i += 2
    return out.decode('utf-8', 'replace')


def parse(lines):
    stack = [{}]
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line == '}':
            stack.pop()
        elif line.endswith('{'):
            child = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(child)
            stack.append(child)
        else:
            key, _, val = line.partition(':')
            val = val.strip()
            if val.startswith('"'):
                v = unescape(val[1:-1])
            elif val in ('true', 'false'):
                v = val == 'true'
            else:
                try:
                    v = int(val)
                except ValueError:
                    v = float(val) if val.replace('.', '', 1).lstrip('-').isdigit() else val
            stack[-1].setdefault(key.strip(), []).append(v)
    return stack[0]


def main():
    pdir, pfile, msg = sys.argv[1:4]
    data = sys.stdin.buffer.read()
    if '--gunzip' in sys.argv[4:]:
        data = gzip.decompress(data)
    # from pdir: protoc maps a relative file name onto --proto_path only
    # where that name exists from its working directory
    r = subprocess.run(['protoc', '--proto_path=.', '--decode=' + msg, pfile],
                       input=data, capture_output=True, cwd=pdir)
    if r.returncode:
        sys.stderr.write('protoc: ' + r.stderr.decode(errors='replace'))
        sys.exit(1)
    json.dump(parse(r.stdout.decode('utf-8', 'replace').splitlines()), sys.stdout)


main()
