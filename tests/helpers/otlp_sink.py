#!/usr/bin/env python3
# tests/helpers/otlp_sink.py: a loopback OTLP/HTTP receiver for the push
# tests: POST /v1development/profiles bodies saved as DIR/req-N.pb (headers
# in DIR/req-N.hdr), one line per request in DIR/log ("N STATUS T LEN"):
#   otlp_sink.py DIR [--port P] [--refuse N] [--delay S]
# --refuse N: the first N requests get 503 with Retry-After: 1; --delay S:
# each answer waits S seconds. The port it listens on goes to DIR/port.
import http.server, os, sys, threading, time

d = sys.argv[1]
args = sys.argv[2:]
opt = lambda k, v: type(v)(args[args.index(k) + 1]) if k in args else v
port, refuse, delay = opt('--port', 0), opt('--refuse', 0), opt('--delay', 0.0)
lock = threading.Lock()
count = [0]


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get('Content-Length', '0'))
        body = self.rfile.read(n)
        with lock:
            count[0] += 1
            k = count[0]
        if delay:
            time.sleep(delay)
        status = 503 if k <= refuse else 200
        if status == 200 and self.path == '/v1development/profiles':
            with open(os.path.join(d, 'req-%d.pb' % k), 'wb') as f:
                f.write(body)
            with open(os.path.join(d, 'req-%d.hdr' % k), 'w') as f:
                f.write(str(self.headers))
        elif status == 200:
            status = 404
        with lock, open(os.path.join(d, 'log'), 'a') as f:
            f.write('%d %d %.3f %d\n' % (k, status, time.time(), n))
        self.send_response(status)
        if status == 503:
            self.send_header('Retry-After', '1')
        self.send_header('Content-Type', 'application/x-protobuf')
        self.send_header('Content-Length', '0')
        self.end_headers()


class S(http.server.ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True


s = S(('127.0.0.1', port), H)
with open(os.path.join(d, 'port.tmp'), 'w') as f:
    f.write(str(s.server_address[1]))
os.rename(os.path.join(d, 'port.tmp'), os.path.join(d, 'port'))
s.serve_forever()
