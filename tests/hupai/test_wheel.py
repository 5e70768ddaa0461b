"""hupai as a user installs it: the wheel built from this checkout, installed in a fresh
virtual environment, run from a folder outside the checkout — read a real photo, score a
hand, keep a table, serve the page — with nothing but ``hupai`` at the wheel's top level.

The wheel and the environment are built once for every test here (about a minute: the
dependencies come from the package registry's cache), shared by pytest-xdist's workers through
a lock, and thrown away with pytest's temporary folders.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hupai.scoring.tiles import parse_tiles

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))  # the free-port helper
from uvicorn_thread import free_port

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "vision" / "fixtures" / "real" / "row14a.jpg"  # credited, CC BY 4.0
WHEEL_MAX_BYTES = 20 * 2**20  # the target: ≤ 20 MB with the models


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin: Path  # the fresh environment's bin/
    home: Path  # a working folder outside the checkout

    def hupai(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "hupai"), *args],
            cwd=self.home,
            env=clean_environment(self.home),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def clean_environment(home: Path) -> dict[str, str]:
    """No HUPAI_* setting, no checkout on the path, data in the working folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HUPAI_", "PYTHON"))}
    env["XDG_DATA_HOME"] = str(home / "data")
    env["HOME"] = str(home)
    return env


def build_and_install(folder: Path) -> Installed:
    dist, venv, home = folder / "dist", folder / "venv", folder / "home"
    home.mkdir()
    # the sdist, then the wheel from it (as `make dist`): a wheel built straight from the
    # checkout would carry whatever a stale build/lib still holds (a model since removed)
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("hupai-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        cwd=home,
    )
    return Installed(wheel, venv / "bin", home)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # this run's folder, the same for every xdist worker
    folder = shared / "installed-wheel"
    with open(shared / "installed-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "done").exists():
            folder.mkdir(exist_ok=True)
            installed = build_and_install(folder)
            (folder / "done").write_text(str(installed.wheel))
    return Installed(Path((folder / "done").read_text()), folder / "venv" / "bin", folder / "home")


def test_the_wheel_holds_only_hupai_at_its_top_level(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.startswith("hupai-")} == {"hupai"}


def test_the_wheel_carries_the_models_their_card_and_credits(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    shipped = {p.name for p in (ROOT / "models").iterdir() if p.suffix in (".onnx", ".json")}
    assert {n.removeprefix("hupai/models/") for n in names if n.endswith((".onnx", ".json"))} >= (
        shipped
    )
    assert {n for n in names if n.endswith(".onnx")} == {
        f"hupai/models/{n}" for n in shipped if n.endswith(".onnx")
    }
    assert {"hupai/models/MODEL_CARD.md", "hupai/models/CREDITS.md"} <= names
    assert installed.wheel.stat().st_size <= WHEEL_MAX_BYTES


def test_version(installed: Installed) -> None:
    done = installed.hupai("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("hupai ")


def test_read_a_real_photo_outside_the_checkout(installed: Installed) -> None:
    done = installed.hupai("read", str(PHOTO), "--json")
    assert done.returncode == 0, done.stderr
    reading = json.loads(done.stdout)
    assert len(parse_tiles(reading["hand"])) >= 13


def test_score_a_hand(installed: Installed) -> None:
    request = {
        "city": "shaanxi",
        "hand": "123m456p789s11z555z",
        "win_tile": "5z",
        "win": "discard",
        "winner": 0,
        "discarder": 2,
    }
    (installed.home / "hand.json").write_text(json.dumps(request))
    done = installed.hupai("score", "hand.json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["deltas"] == [6, 0, -6, 0]


def test_a_new_table_is_kept_in_the_users_data_folder(installed: Installed) -> None:
    done = installed.hupai("table", "new", "--city", "shaanxi", "--players", "A", "B", "C", "D")
    assert done.returncode == 0, done.stderr
    assert (installed.home / "data" / "hupai" / "tables.sqlite3").is_file()


def test_a_command_whose_extra_is_missing_names_the_extra(installed: Installed) -> None:
    done = installed.hupai("label", str(PHOTO.parent), "--out", "out", "--engine", "ray")
    assert done.returncode == 2
    assert "pip install 'hupai[ray]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def served(installed: Installed) -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(
        [str(installed.bin / "hupai"), "serve", "--port", str(port), "--log-level", "warning"],
        cwd=installed.home,
        env=clean_environment(installed.home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    server.kill()
                    pytest.fail(f"hupai serve did not start: {server.communicate()[1]}")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_serve_answers_healthz_and_the_page(served: str) -> None:
    with urllib.request.urlopen(served + "/healthz", timeout=5) as answer:
        assert json.loads(answer.read())["status"] == "ok"
    with urllib.request.urlopen(served + "/", timeout=5) as answer:
        page = answer.read().decode()
    assert "<html" in page.lower() and "hupai" in page.lower()
