"""The ASGI entry point every web process loads."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import ROOT


def test_a_web_process_keeps_what_it_loaded_out_of_the_garbage_collectors_full_sweeps():
    """Loading the application freezes what the process loaded (gc.freeze): a full collection then
    walks only what requests made since, instead of stalling every socket for the whole heap."""
    probe = "import gc\nimport penta.asgi\nprint(gc.get_freeze_count())\n"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "penta.settings_test"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert int(done.stdout) > 50_000  # Django, the apps and their modules
