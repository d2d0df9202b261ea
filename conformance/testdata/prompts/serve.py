# An HTTP server that also reads its terminal, as dev servers do for
# their shortcut keys: it is serving, not waiting for input.
import http.server
import sys
import threading

srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
print("serving on port", srv.server_address[1], flush=True)
for line in sys.stdin:
    print("got", line.strip(), flush=True)
