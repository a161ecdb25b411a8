"""Every screen ships in English and Dutch: every string the code and templates mark for translation
has its Dutch, and none is a guess gettext made (fuzzy). The strings are gathered as `makemessages`
does, in a copy of the sources, so the repository's catalogue is read and never rewritten."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib

from tests.support import ROOT
from tests.support.environment import require

# Every package of the layers (pyproject.toml names them all), the templates and the catalogue.
PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
SOURCES = ("manage.py", *PACKAGES, "templates", "locale")


def entries(po, *only: str) -> list[str]:
    """The msgids of the catalogue's entries that gettext's msgattrib selects (--untranslated, ...)."""
    out = subprocess.run(
        ["msgattrib", "--no-obsolete", "--no-wrap", *only, str(po)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line for line in out.splitlines() if line.startswith("msgid ") and line != 'msgid ""']


def test_every_string_has_its_dutch(tmp_path):
    require(shutil.which("msgattrib") is not None, "GNU gettext", "apt-get install gettext")
    copy = tmp_path / "penta"
    copy.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
        elif source.exists():
            shutil.copy2(source, copy / name)
    env = {**os.environ, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "penta.settings"}
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "nl", "--no-obsolete", "-v0"],
        cwd=copy,
        env=env,
        check=True,
        capture_output=True,
    )
    po = copy / "locale" / "nl" / "LC_MESSAGES" / "django.po"
    assert len(entries(po)) > 500  # the strings were gathered
    assert entries(po, "--untranslated") == []
    assert entries(po, "--only-fuzzy") == []
