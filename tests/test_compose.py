"""docker-compose.yml, read without Docker: services, commands, variables and health checks
agree with the settings; and the web and migrate commands run here against PostgreSQL."""

from __future__ import annotations

import ast
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import dj_database_url
import pytest
import yaml
from celery import Celery
from celery.app.utils import find_app
from django.core.management import get_commands
from django.utils.module_loading import import_string

from tests.services import database_url

ROOT = Path(__file__).resolve().parent.parent
# Also loaded by addopts (-p tests.plugins.services); named here so this module works alone.
APP_SERVICES = ("migrate", "web", "worker")
LONG_RUNNING = ("db", "redis", "web", "worker")
INTERPOLATION = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}")


def dotenv_example() -> dict[str, str]:
    """The active assignments of .env.example."""
    values = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        match = re.match(r"^(\w+)=(.*)$", line)
        if match:
            values[match.group(1)] = match.group(2)
    return values


# What an operator puts in .env in place of the example's public placeholder.
OPERATOR_SECRET_KEY = "Hq3-8vZ0c_Ttq2mWkE4yFJ1aN7xLpR5sD9uG6bC0eY2iK8oM3nVw"


def operator_dotenv() -> dict[str, str]:
    """.env as an operator writes it from .env.example: the placeholder secret replaced."""
    return {**dotenv_example(), "SECRET_KEY": OPERATOR_SECRET_KEY}


def documented_variables() -> set[str]:
    """Every variable named in .env.example, set or commented out (``# NAME=``)."""
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#?\s*(\w+)=", text, flags=re.M))


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's ``${NAME}``, ``${NAME:-default}``, ``${NAME:?error}`` and ``$$``."""
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if not isinstance(value, str):
        return value

    def replace(match: re.Match[str]) -> str:
        name, op, arg = match.group("name"), match.group("op"), match.group("arg")
        current = env.get(name, "")
        if op in (":-", "-"):
            return current or arg
        if op in (":?", "?") and not current:
            raise AssertionError(f"compose requires {name}: {arg}")
        return current

    return INTERPOLATION.sub(replace, value.replace("$$", "\0")).replace("\0", "$")


def compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    raw = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return interpolate(raw, dotenv_example() if env is None else env)


def raw_compose_text() -> str:
    return (ROOT / "docker-compose.yml").read_text()


def settings_variables() -> set[str]:
    """Every environment variable agreement_server/settings.py reads (``env_*("NAME", ...)``)."""
    tree = ast.parse((ROOT / "agreement_server" / "settings.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("env_")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value))
            if node.func.id == "env_secret":
                names.add(f"{node.args[0].value}_FILE")
    return names


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def option(command: list[str], name: str) -> str:
    for index, part in enumerate(command):
        if part.startswith(f"{name}="):
            return part.split("=", 1)[1]
        if part == name:
            return command[index + 1]
    raise AssertionError(f"{name} not in {command}")


def test_compose_declares_the_database_the_broker_the_web_server_and_a_worker() -> None:
    assert set(compose()["services"]) == {"db", "redis", "migrate", "web", "worker"}


def test_every_service_has_an_image_and_the_app_services_are_built_here() -> None:
    services = compose()["services"]
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    for name in APP_SERVICES:
        assert services[name]["build"] == "."
        assert services[name]["image"] == services["web"]["image"]
    assert (ROOT / "Dockerfile").is_file()


def test_every_long_running_service_has_a_health_check() -> None:
    services = compose()["services"]
    for name in LONG_RUNNING:
        assert services[name]["healthcheck"]["test"], name
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["redis"]["healthcheck"]["test"][1:] == ["redis-cli", "ping"]
    web_check = " ".join(services["web"]["healthcheck"]["test"])
    port = option(services["web"]["command"], "--bind").rsplit(":", 1)[1]
    assert f"http://localhost:{port}/admin/login/" in web_check
    assert "inspect ping" in " ".join(services["worker"]["healthcheck"]["test"])


def test_web_and_worker_start_after_healthy_services_and_finished_migrations() -> None:
    services = compose()["services"]
    for name in ("web", "worker"):
        assert services[name]["depends_on"] == {
            "db": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
            "migrate": {"condition": "service_completed_successfully"},
        }
    assert services["migrate"]["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert services["migrate"]["restart"] == "no"


def test_the_web_command_serves_the_projects_wsgi_application_on_the_published_port() -> None:
    web = compose()["services"]["web"]
    command = web["command"]
    assert command[0] == "gunicorn"
    target = command[1]
    module, attribute = target.split(":")
    application = import_string(f"{module}.{attribute}")
    assert callable(application)
    port = option(command, "--bind").rsplit(":", 1)[1]
    assert any(mapping.endswith(f":{port}") for mapping in web["ports"])


def published_ports(service: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(host address, host port, container port)`` of each entry of a service's ``ports``,
    short (``[HOST_IP:]HOST_PORT:CONTAINER_PORT``) or long syntax; no address means all."""
    published = []
    for entry in service.get("ports", []):
        if isinstance(entry, dict):
            parts = [entry.get("host_ip", ""), entry.get("published", ""), entry["target"]]
        else:  # drop "/tcp"; an IPv6 host address keeps its colons
            parts = ["", "", *str(entry).split("/")[0].rsplit(":", 2)][-3:]
        host_ip, host_port, container_port = (str(part) for part in parts)
        published.append((host_ip, host_port, container_port))
    return published


def test_gunicorn_is_published_on_loopback_only_so_num_proxies_is_the_hosts_proxy() -> None:
    # NUM_PROXIES=1 trusts the last X-Forwarded-For entry: a client that reached gunicorn
    # without the proxy would pick its own address and never be throttled (issue 25,
    # finding 7). Only the proxy on the host reaches the loopback address.
    services = compose()["services"]
    assert environment(services["web"])["NUM_PROXIES"] == "1"
    assert published_ports(services["web"]) == [("127.0.0.1", "8000", "8000")]
    assert published_ports(
        compose({**dotenv_example(), "WEB_PORT": "8080"})["services"]["web"]
    ) == [("127.0.0.1", "8080", "8000")]
    for name in ("db", "redis", "migrate", "worker"):
        assert published_ports(services[name]) == [], name


def test_the_worker_command_finds_the_projects_celery_app() -> None:
    command = compose()["services"]["worker"]["command"]
    assert command[:2] == ["celery", "-A"]
    assert command[3] == "worker"
    app = find_app(command[2])
    assert isinstance(app, Celery)
    assert app.main == "agreement_server"


def test_the_migrate_command_is_a_django_command() -> None:
    command = compose()["services"]["migrate"]["command"]
    assert command[:2] == ["python", "manage.py"]
    assert command[2] in get_commands()
    assert (ROOT / "manage.py").is_file()


def test_every_variable_compose_sets_is_read_by_the_settings() -> None:
    read = settings_variables()
    for name in APP_SERVICES:
        assert set(environment(compose()["services"][name])) <= read, name


def test_compose_sets_every_setting_production_requires() -> None:
    for name in APP_SERVICES:
        env = environment(compose()["services"][name])
        assert env["DEBUG"] == "0"
        assert env.get("SECRET_KEY") or env.get("SECRET_KEY_FILE")
        assert env["ALLOWED_HOSTS"]
        assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"
        assert env["DATABASE_URL"].startswith("postgres://")


def test_the_database_url_points_at_the_compose_database_with_its_credentials() -> None:
    services = compose()["services"]
    db = environment(services["db"])
    parsed = dj_database_url.parse(environment(services["web"])["DATABASE_URL"])
    assert parsed["ENGINE"] == "django.db.backends.postgresql"
    assert (parsed["HOST"], parsed["PORT"]) == ("db", 5432)
    assert parsed["NAME"] == db["POSTGRES_DB"]
    assert parsed["USER"] == db["POSTGRES_USER"]
    assert parsed["PASSWORD"] == db["POSTGRES_PASSWORD"] == dotenv_example()["POSTGRES_PASSWORD"]
    assert f"-U {db['POSTGRES_USER']} -d {db['POSTGRES_DB']}" in " ".join(
        services["db"]["healthcheck"]["test"]
    )


def test_compose_refuses_to_start_without_the_secrets() -> None:
    with pytest.raises(AssertionError, match="compose requires SECRET_KEY"):
        compose(env={"POSTGRES_PASSWORD": "x", "ALLOWED_HOSTS": "a.org"})
    with pytest.raises(AssertionError, match="compose requires POSTGRES_PASSWORD"):
        compose(env={"SECRET_KEY": "x", "ALLOWED_HOSTS": "a.org"})


def test_env_example_documents_every_variable_settings_and_compose_read() -> None:
    documented = documented_variables()
    assert settings_variables() <= documented
    interpolated = {match.group("name") for match in INTERPOLATION.finditer(raw_compose_text())}
    assert interpolated <= documented


def load_settings(tmp_path: Path, dotenv: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Start Django's settings in a fresh process with the compose web service's environment."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in settings_variables() and key != "DJANGO_SETTINGS_MODULE"
    }
    env.update(environment(compose(dotenv)["services"]["web"]))
    env.update(AGREEMENT_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="agreement_server.settings")
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBUG, s.DATABASES['default']['HOST'], s.ALLOWED_HOSTS)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_settings_load_with_the_compose_environment(tmp_path: Path) -> None:
    result = load_settings(tmp_path, operator_dotenv())
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["False", "db"]
    assert "localhost" in result.stdout


def test_the_example_placeholder_secret_key_stops_the_compose_start(tmp_path: Path) -> None:
    result = load_settings(tmp_path, dotenv_example())
    assert result.returncode == 1
    assert "ImproperlyConfigured: SECRET_KEY is the public placeholder of .env.example" in (
        result.stderr
    )


def test_the_image_installs_the_project_and_runs_the_same_web_command() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.1[1-9]", dockerfile, flags=re.M)
    assert "pip install" in dockerfile
    web = compose()["services"]["web"]["command"]
    assert f'"gunicorn", "{web[1]}"' in dockerfile
    assert "USER app" in dockerfile


# --- running the compose commands here, against the local PostgreSQL -----------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def local_env(test_database_url: str, broker_url: str, var_dir: Path) -> dict[str, str]:
    """The compose environment, pointed at this machine's services and the test database."""
    env = {key: value for key, value in os.environ.items() if key not in settings_variables()}
    env.update(environment(compose(operator_dotenv())["services"]["web"]))
    env.update(
        DJANGO_SETTINGS_MODULE="agreement_server.settings",
        DATABASE_URL=test_database_url,
        CELERY_BROKER_URL=broker_url,
        CACHE_URL=broker_url,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        AGREEMENT_VAR_DIR=str(var_dir),
    )
    return env


def get(url: str) -> int | None:
    # As the proxy in front of gunicorn would: the request arrived over https (else the
    # production settings redirect it there).
    request = urllib.request.Request(url, headers={"X-Forwarded-Proto": "https"})
    try:
        with urllib.request.urlopen(request, timeout=3) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


@pytest.mark.services
@pytest.mark.slow
def test_the_compose_migrate_and_web_commands_run_against_postgresql(
    transactional_db: None, postgres_required: str, redis_broker: str, tmp_path: Path
) -> None:
    from django.db import connection

    env = local_env(database_url(connection.settings_dict), redis_broker, tmp_path)
    services = compose()["services"]
    migrate_command = services["migrate"]["command"]
    migrate = subprocess.run(
        [sys.executable, *migrate_command[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrate.returncode == 0, migrate.stderr

    port = free_port()
    command = [
        f"--bind=127.0.0.1:{port}" if part.startswith("--bind") else part
        for part in services["web"]["command"]
    ]
    command = [sys.executable, "-m", *command]
    log_path = tmp_path / "gunicorn.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while get(f"http://127.0.0.1:{port}/admin/login/") != 200:
            assert server.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.3)
        assert get(f"http://127.0.0.1:{port}/api/schema/") == 200
        # The database is reached: an anonymous API call is refused, not a server error.
        assert get(f"http://127.0.0.1:{port}/api/v1/studies/") in {401, 403}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
