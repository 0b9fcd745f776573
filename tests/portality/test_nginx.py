"""The production compose file's nginx configuration (deploy/nginx/portality.conf), run for
real with Debian's nginx in front of `make run` started with BEHIND_PROXY=1, as the compose
file runs the application behind it. Only two lines change: the upstream's address and the
port nginx listens on."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import socket
import subprocess
import time
import urllib.parse
from pathlib import Path

import pytest

from tests.portality.test_runner import ROOT, free_port, manage, running_product

pytestmark = pytest.mark.process
CONFIG = ROOT / "deploy" / "nginx" / "portality.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_config(directory: Path, app_port: int, port: int) -> Path:
    site = CONFIG.read_text()
    for line, replacement in [
        ("server web:8000;", f"server 127.0.0.1:{app_port};"),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("/var/log/nginx/access.log", f"{directory}/access.log"),
    ]:
        assert site.count(line) == 1, line
        site = site.replace(line, replacement)
    (directory / "portality.conf").write_text(site)
    main = directory / "nginx.conf"
    # What the official image's nginx.conf gives the file (it is included inside http {}),
    # with every path in this test's directory.
    temp_paths = "\n".join(
        f"  {kind}_temp_path {directory}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    main.write_text(
        f"user root;\nworker_processes 1;\npid {directory}/nginx.pid;\n"
        f"error_log {directory}/error.log;\nevents {{}}\n"
        f"http {{\n  access_log {directory}/access.log;\n{temp_paths}\n"
        f"  include {directory}/portality.conf;\n}}\n"
    )
    return main


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    if not Path(NGINX).exists():
        pytest.fail("nginx is missing: make test installs it (scripts/system-packages.sh)")
    with running_product(tmp_path_factory.mktemp("behind-nginx"), BEHIND_PROXY="1") as product:
        directory = tmp_path_factory.mktemp("nginx")
        port = free_port()
        main = nginx_config(directory, product["port"], port)
        checked = subprocess.run(
            [NGINX, "-t", "-p", str(directory), "-c", str(main)], text=True, capture_output=True
        )
        assert checked.returncode == 0, checked.stderr
        nginx = subprocess.Popen(
            [NGINX, "-p", str(directory), "-c", str(main), "-g", "daemon off;"],
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and nginx.poll() is None, "nginx did not start"
                time.sleep(0.1)
        try:
            yield product | {"nginx_port": port, "nginx_dir": directory}
        finally:
            nginx.terminate()
            nginx.wait(10)


def connect(proxied, source: str = "127.0.0.1") -> http.client.HTTPConnection:
    """A client of nginx from ``source`` (another loopback address is another client)."""
    return http.client.HTTPConnection(
        "127.0.0.1", proxied["nginx_port"], timeout=30, source_address=(source, 0)
    )


def request(proxied, method, path, *, source="127.0.0.1", body=None, headers=None):
    connection = connect(proxied, source)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, data


def test_the_product_answers_through_nginx_which_names_no_version(proxied):
    response, body = request(proxied, "GET", "/healthz")
    assert response.status == 200 and json.loads(body) == {"status": "ok"}
    assert response.getheader("Server") == "nginx"


def login_attempt(proxied, source: str, password: str, claimed: str = "") -> int:
    """One sign-in as the first admin from ``source``, claiming ``claimed`` as its address."""
    response, page = request(proxied, "GET", "/accounts/login/", source=source)
    cookie = response.getheader("Set-Cookie").split(";")[0]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    form = urllib.parse.urlencode(
        {"username": "admin", "password": password, "csrfmiddlewaretoken": token}
    )
    headers = {
        "Cookie": cookie,
        "Content-Type": "application/x-www-form-urlencoded",
        "Referer": f"http://127.0.0.1:{proxied['nginx_port']}/",
    }
    if claimed:
        headers["X-Forwarded-For"] = claimed
    response, _ = request(
        proxied, "POST", "/accounts/login/", source=source, body=form, headers=headers
    )
    return response.status


def test_the_access_log_keeps_no_query_string(proxied):
    """Query strings name end users (?user=) and carry search words and filters; the
    default log format kept them as long as the operator's logs are kept."""
    response, _ = request(proxied, "GET", "/healthz?user=ana-ruiz&q=salario+de+ana")
    assert response.status == 200

    request_id = response.getheader("X-Request-ID").replace("-", "")  # nginx's, as it logs it
    logged = logged_line(proxied["nginx_dir"] / "access.log", request_id)
    assert "GET /healthz HTTP/1.1" in logged
    assert "ana-ruiz" not in logged and "salario" not in logged


def logged_line(log: Path, request_id: str, seconds: float = 5.0) -> str:
    """The access log's line for ``request_id``. nginx writes it after the response has
    gone: a client reading the log at once may be there first (a fresh clone's run failed
    so, finding the module's earlier /healthz line only)."""
    deadline = time.monotonic() + seconds
    while True:
        line = next((line for line in log.read_text().splitlines() if request_id in line), "")
        if line or time.monotonic() > deadline:
            return line
        time.sleep(0.05)


def test_login_throttling_keys_on_the_client_nginx_saw_not_its_claim(proxied):
    # Finding F9: throttling must see the real client behind the proxy — not nginx's own
    # address (which would lock everyone out together) and not what the client claims.
    wrong = [
        login_attempt(proxied, "127.0.0.2", "wrong-password", f"198.51.100.{n}") for n in range(5)
    ]
    assert wrong == [200, 200, 200, 200, 429], wrong
    assert login_attempt(proxied, "127.0.0.2", "first-admin-pass", "127.0.0.3") == 429
    # Another client, even claiming to be the locked one, signs in (302 to the dashboard).
    assert login_attempt(proxied, "127.0.0.3", "first-admin-pass", "127.0.0.2") == 302


def test_a_clients_claim_of_https_does_not_make_cookies_secure(proxied):
    # nginx sets X-Forwarded-Proto from the connection it saw (plain HTTP here).
    response, _ = request(
        proxied, "GET", "/accounts/login/", headers={"X-Forwarded-Proto": "https"}
    )
    assert "secure" not in response.getheader("Set-Cookie").lower()


def test_an_anonymous_large_upload_is_refused_before_it_is_sent(proxied):
    # Finding N2 through the proxy: nginx passes the upload route on unbuffered, so the
    # application refuses it from the headers alone.
    with socket.create_connection(("127.0.0.1", proxied["nginx_port"]), timeout=20) as sock:
        sock.sendall(
            b"POST /knowledge/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            b"multipart/form-data; boundary=b\r\nContent-Length: 51380224\r\n\r\n"
        )
        answer = sock.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 403") and "Sign in, or send the API token" in answer


def test_an_anonymous_client_sending_a_whole_upload_hears_the_403_not_a_502(proxied):
    # nginx asks the application first (auth_request), then discards the body itself; the
    # application used to close the connection mid-body, which nginx reported as 502.
    body = b"x" * (4 * 1024 * 1024)
    for _ in range(3):
        response, answer = request(
            proxied,
            "POST",
            "/knowledge/upload",
            body=body,
            headers={"Content-Type": "multipart/form-data; boundary=b", "Accept-Language": "es"},
        )
        assert response.status == 403, answer
        assert json.loads(answer)["detail"].startswith("Inicia sesión, o envía")
    outside, _ = request(proxied, "GET", "/_edge/may-upload")
    assert outside.status == 404  # only nginx asks


def test_a_script_uploads_a_large_file_through_the_api_with_its_token(proxied):
    """The admin API's upload took at most 2.5 MB (nginx's and the edge's limit for every
    route but the console's upload): a script's 4 MB file was refused 413."""
    token = manage(proxied, "drf_create_token", "admin").split()[2]
    text = "\n".join(
        f"Artículo {n}. La norma {n} regula la zona común {n} del condominio."
        for n in range(70_000)
    ).encode()
    assert len(text) > 4 * 1024 * 1024
    body = (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="normas.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n" + text + b"\r\n--b--\r\n"
    )
    headers = {"Content-Type": "multipart/form-data; boundary=b"}

    # Without a token, refused from the headers alone (as the console's upload route is:
    # the body is never read, so this client sends none).
    with socket.create_connection(("127.0.0.1", proxied["nginx_port"]), timeout=20) as sock:
        sock.sendall(
            b"POST /api/v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            b"multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n" % len(body)
        )
        refused = sock.recv(4096).decode()
    assert refused.startswith("HTTP/1.1 403") and "API token" in refused
    uploaded, answer = request(
        proxied,
        "POST",
        "/api/v1/documents",
        body=body,
        headers=headers | {"Authorization": f"Token {token}"},
    )
    assert uploaded.status == 201, answer
    assert json.loads(answer)["filename"] == "normas.txt"


def test_a_body_over_the_limit_is_refused_by_nginx(proxied):
    response, _ = request(
        proxied,
        "POST",
        "/api/v1/search",
        body=b"{" + b" " * (4 * 1024 * 1024) + b"}",
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 413


def test_chat_events_stream_through(proxied):
    key = (proxied["data_dir"] / "demo-license.key").read_text()
    connection = connect(proxied)
    connection.request(
        "POST",
        "/api/v1/chat/stream",
        body=json.dumps({"message": "¿A qué hora abre la piscina?", "user": "ana"}),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/event-stream"
    events = response.read().decode()
    connection.close()
    assert "event: done" in events
