"""Another transaction holding a row's lock until released, on its own thread and connection: for tests of
what waits on the database and what must not."""

from __future__ import annotations

import threading

from django.db import connection, transaction


class RowLock:
    def __init__(self, model, pk: int):
        self.model = model
        self.pk = pk
        self.taken = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self):
        try:
            with transaction.atomic():
                self.model.objects.select_for_update().get(pk=self.pk)
                self.taken.set()
                self.release.wait(timeout=30)
        finally:
            connection.close()

    def __enter__(self):
        self.thread.start()
        assert self.taken.wait(timeout=10)
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.thread.join(timeout=10)
