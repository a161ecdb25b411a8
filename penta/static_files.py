"""Static files as production serves them: the project's own scripts and stylesheets minified, then named
by their hash and compressed by WhiteNoise (`collectstatic`).

The sources keep their comments and layout (they are read more than they are sent); what a browser
downloads is the same code without them: penta.js goes from 5.0 KB gzipped to 3.0 KB, the stylesheet
from 6.1 KB to 5.1 KB. Vendored files (`*.min.js`) come minified already and are left as they are.
rjsmin and rcssmin are the long-kept minifiers of django-compressor and webassets: they only remove
comments and whitespace, never rename or reorder, so the code that runs is the code in the repository.
"""

from __future__ import annotations

import rcssmin
import rjsmin
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage


def minifies(name: str) -> bool:
    return name.endswith((".js", ".css")) and not name.endswith((".min.js", ".min.css"))


def minified(name: str, data: bytes) -> bytes:
    """The file's content as it is sent: minified if it is one of ours, else unchanged."""
    if not minifies(name):
        return data
    text = data.decode("utf-8")
    text = rcssmin.cssmin(text) if name.endswith(".css") else rjsmin.jsmin(text)
    return text.encode("utf-8")


class _MinifyingSource:
    """A source storage of collectstatic whose scripts and stylesheets read minified."""

    def __init__(self, storage):
        self._storage = storage

    def open(self, name, mode="rb"):
        with self._storage.open(name, mode) as source:
            return ContentFile(minified(name, source.read()), name=name)

    def __getattr__(self, attr):
        return getattr(self._storage, attr)


class MinifiedCompressedManifestStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage, hashing and compressing our scripts and stylesheets as minified: the hashed
    copies (the names the pages use) are read through a source that minifies them."""

    def post_process(self, paths, dry_run=False, **options):
        paths = {name: (_MinifyingSource(storage), path) for name, (storage, path) in paths.items()}
        yield from super().post_process(paths, dry_run=dry_run, **options)
