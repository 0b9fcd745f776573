"""`make run` as people run it: a real runner process on a fresh data dir, nothing exported."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.browser import chromium_page

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.process
SCRUBBED = {"SECRET_KEY", "SECRET_KEY_FILE", "DEBUG", "DATABASE_URL", "REDIS_URL"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return (
                response.status,
                response.headers.get("Content-Type", ""),
                response.read().decode(errors="replace"),
            )
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


@pytest.fixture(scope="module")
def product(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("run")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("DJANGO")}
    env.update(
        PORTALITY_DATA_DIR=str(data_dir),
        PORT=str(port),
        DEMO_PORT=str(free_port()),
        ADMIN_PASSWORD="first-admin-pass",
        PYTHONUNBUFFERED="1",
        WEB_HEADER_TIMEOUT="3",  # the slow-client test waits for its 408
    )
    log_path = data_dir / "run.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "portality.runner"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 180
    while "Ready:" not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"make run did not become ready:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.5)
    yield {
        "url": f"http://127.0.0.1:{port}",
        "process": process,
        "log": log_path,
        "data_dir": data_dir,
    }
    if process.poll() is None:  # a test failed before Ctrl-C: stop it as a person would
        process.send_signal(signal.SIGINT)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def test_a_healthy_start_prints_no_error_lines(product):
    started = product["log"].read_text()
    assert "ERROR" not in started and "Traceback" not in started
    assert "superuser privileges" not in started  # Celery's root warning (JSON-only worker)
    assert get(product["url"] + "/healthz")[0] == 200


def test_a_missing_page_is_friendly_and_shows_no_debug_text(product):
    status, content_type, body = get(product["url"] + "/no-such-page/")
    assert status == 404 and content_type.startswith("text/html")
    assert "Page not found" in body and "Go to the dashboard" in body
    assert "URLconf" not in body and "DEBUG = True" not in body and "Traceback" not in body

    status, content_type, body = get(product["url"] + "/api/v1/no-such-endpoint")
    assert (status, content_type) == (404, "application/json") and '"detail"' in body


def test_cookies_work_over_plain_http_on_embedded_defaults(product):
    # make run serves plain HTTP: its children must not take the embedded database for an
    # external one (they were once handed its URL as DATABASE_URL) and mark cookies Secure,
    # which browsers and curl then drop, so that no one could log in from another machine.
    with urllib.request.urlopen(product["url"] + "/accounts/login/", timeout=10) as response:
        cookies = response.headers.get_all("Set-Cookie") or []
    assert any(c.startswith("csrftoken=") for c in cookies)
    assert not any("secure" in c.lower() for c in cookies)


def test_the_web_servers_socket_is_the_service_users_only(product):
    # Finding N6: gunicorn's socket behind the front door was 0777, so any local user could
    # reach Django past the front door's limits.
    from portality.web import socket_path_for

    assert socket_path_for(product["data_dir"]).stat().st_mode & 0o077 == 0


def test_login_throttling_sees_the_real_client_behind_the_front_door(product):
    # Finding F9 of the second outside attack run: behind the front door django-axes saw an
    # empty client address, and 40 wrong passwords followed by the right one logged in.
    import http.cookiejar
    import re
    import urllib.parse

    def attempt(password: str, claimed_address: str) -> int:
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(product["url"] + "/accounts/login/", timeout=10).read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        body = urllib.parse.urlencode(
            {"username": "admin", "password": password, "csrfmiddlewaretoken": token}
        ).encode()
        request = urllib.request.Request(
            product["url"] + "/accounts/login/",
            data=body,
            # A client's own claim about its address must not give it fresh attempts.
            headers={"X-Forwarded-For": claimed_address, "Referer": product["url"] + "/"},
        )
        try:
            with opener.open(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    # LOGIN_FAILURE_LIMIT (5) wrong passwords: the form again four times, then the lockout.
    wrong = [attempt("wrong-password", f"203.0.113.{n}") for n in range(5)]
    assert wrong == [200, 200, 200, 200, 429], wrong
    assert attempt("first-admin-pass", "198.51.100.7") == 429  # locked, right password or not


def test_favicon_and_hashed_static_files_are_served(product):
    status, content_type, _ = get(product["url"] + "/favicon.ico")
    assert status == 200 and "icon" in content_type
    status, _, login = get(product["url"] + "/accounts/login/")
    assert status == 200
    css = login.split('href="/static/css/')[1].split('"')[0]
    assert css.count(".") == 2  # app.<hash>.css: DEBUG off serves the collected, hashed files
    assert get(product["url"] + "/static/css/" + css)[0] == 200


def test_api_docs_render_with_other_hosts_blocked(product):
    blocked = []

    def only_this_host(route):
        if route.request.url.startswith(product["url"]):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with chromium_page() as page:
        page.route("**/*", only_this_host)
        page.goto(product["url"] + "/api/docs/")
        page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
        assert "Portality Brain API" in page.inner_text(".swagger-ui .info .title")
        assert page.locator(".opblock").count() > 5  # the operations were read from the schema
    assert blocked == []


def test_slow_clients_do_not_starve_the_server(product):
    """64 sockets that send half a request and wait (16 froze gunicorn on its own). How fast
    /healthz answers meanwhile is measured in tests/bench/load.py, not here."""
    host, port = product["url"].removeprefix("http://").split(":")
    idle = []
    try:
        for _ in range(64):
            sock = socket.create_connection((host, int(port)), timeout=5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
            idle.append(sock)
        for _ in range(10):
            # Frozen, every request timed out (get() gives up after 10 s); now each answers.
            assert get(product["url"] + "/healthz")[0] == 200
        # The half-sent requests are answered 408 once their header deadline passes.
        idle[0].settimeout(30)
        assert idle[0].recv(100).startswith(b"HTTP/1.1 408")
    finally:
        for sock in idle:
            sock.close()


def test_oversized_bodies_get_a_json_413(product):
    host, port = product["url"].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /api/v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200000000\r\n\r\n"
        )
        answer = sock.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 413") and '"detail"' in answer and "limit" in answer

    big = b'{"query": "' + b"a" * (10 * 1024 * 1024) + b'"}'
    key = (product["data_dir"] / "demo-license.key").read_text()  # make run's demo license
    request = urllib.request.Request(
        product["url"] + "/api/v1/search",
        data=big,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    try:
        urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as error:
        assert error.code == 413 and "detail" in error.read().decode()
    else:
        pytest.fail("a 10 MB JSON body was accepted")


def manage(product, *args: str) -> str:
    """A manage.py command on the product's data dir, as a person would run it beside make run."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("DJANGO")}
    env["PORTALITY_DATA_DIR"] = str(product["data_dir"])
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def beats(product) -> list:
    import psutil

    schedule = str(product["data_dir"] / "celerybeat-schedule")
    return [
        p
        for p in psutil.process_iter(["cmdline"])
        if " beat " in " ".join(p.info["cmdline"] or []) + " "
        and schedule in " ".join(p.info["cmdline"] or [])
    ]


def document_status(product, document_id: str) -> str:
    code = f"from knowledge.models import Document; print(Document.objects.get(pk='{document_id}').status)"
    return manage(product, "shell", "-c", code).strip().splitlines()[-1]


def test_a_killed_worker_is_replaced_its_documents_requeued_and_beat_stays_one(product, tmp_path):
    import json

    import psutil

    # A document a worker was ingesting when it was killed (findings F4 and N5 of the second
    # outside attack run: it stayed "processing" until the 15-minute requeue, and the killed
    # worker's beat kept running beside the replacement's, so periodic tasks ran twice).
    note = tmp_path / "nota.txt"
    note.write_text("La piscina abre a las ocho.")
    document_id = json.loads(manage(product, "ingest", str(note), "--json"))["document_id"]
    code = (
        "from knowledge.models import Document; "
        f"Document.objects.filter(pk='{document_id}').update(status='processing')"
    )
    manage(product, "shell", "-c", code)
    assert len(beats(product)) == 1

    runner = psutil.Process(product["process"].pid)
    workers = [p for p in runner.children() if " worker " in " ".join(p.cmdline()) + " "]
    assert len(workers) == 1
    os.kill(workers[0].pid, signal.SIGKILL)  # its main process only, as the attack did

    deadline = time.monotonic() + 90
    while "The worker process exited" not in product["log"].read_text():
        assert time.monotonic() < deadline, "the runner did not notice"
        time.sleep(0.2)
    assert product["process"].poll() is None  # make run itself kept going
    while get(product["url"] + "/healthz")[0] != 200:
        assert time.monotonic() < deadline, "the worker did not come back"
        time.sleep(0.5)
    while document_status(product, document_id) != "ready":
        assert time.monotonic() < deadline, "the interrupted document was not finished"
        time.sleep(1)
    assert len(beats(product)) == 1


def test_ctrl_c_stops_everything_and_says_so(product):
    process = product["process"]
    process.send_signal(signal.SIGINT)
    assert process.wait(60) == 0
    log = product["log"].read_text()
    assert log.rstrip().splitlines()[-1].startswith("Portality Brain stopped:")
    assert "embedded PostgreSQL and Redis stopped" in log
    with pytest.raises(OSError):
        urllib.request.urlopen(product["url"] + "/healthz", timeout=2)
    deadline = time.monotonic() + 10
    while beats(product):  # beat does not outlive make run
        assert time.monotonic() < deadline, "beat survived make run's stop"
        time.sleep(0.2)
