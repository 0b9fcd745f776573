"""A stand-in for a product page on another origin, embedding the chat widget.

It plays the product's backend: with a license key kept server-side it mints a widget
token for each page view, then serves a page whose only tie to Portality is the script tag.

    python -m portality.demo --api http://127.0.0.1:8000 --port 8001 --key-file var/demo-license.key
"""

from __future__ import annotations

import argparse
import html
import json
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PAGE = """<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Savara · Condominio Los Álamos</title>
<style>
  /* Hostile host styles: the widget's Shadow DOM must not care. */
  * {{ font-family: Georgia, serif !important; color: darkred; }}
  button {{ background: yellow !important; font-size: 30px !important; }}
  body {{ max-width: 720px; margin: 2rem auto; padding: 0 1rem; }}
</style></head>
<body>
  <h1>Condominio Los Álamos</h1>
  <p>Portal de residentes. Pregunte al asistente por el reglamento, las reservas o los horarios.</p>
  {notice}
  <script src="{api}/static/widget/portality-chat.js" data-token="{token}" data-api="{api}"
          data-title="Asistente del condominio" data-accent="#0f766e" data-lang="es" async></script>
</body></html>
"""


def mint_token(api: str, key: str, origin: str, user: str) -> str:
    request = urllib.request.Request(
        f"{api}/api/v1/widget/token",
        data=json.dumps({"user": user, "origin": origin}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - local API
        return json.load(response)["token"]


def make_server(*, api: str, key: str, port: int, user: str = "demo-user") -> ThreadingHTTPServer:
    origin = f"http://127.0.0.1:{port}"

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path not in ("/", "/index.html"):
                self.send_error(404)
                return
            notice, token = "", ""
            try:
                token = mint_token(api, key, origin, user)
            except (urllib.error.URLError, OSError, KeyError, ValueError) as exc:
                notice = f'<p role="alert">The chat is unavailable: {html.escape(str(exc))}</p>'
            body = PAGE.format(
                api=html.escape(api), token=html.escape(token), notice=notice
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass  # keep make run's console for the product's own logs

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--api", required=True)
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--key-file", type=Path, required=True)
    args = parser.parse_args()
    server = make_server(
        api=args.api.rstrip("/"), key=args.key_file.read_text().strip(), port=args.port
    )
    print(f"Widget demo (another origin) at http://127.0.0.1:{args.port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
