"""Where our code leans on another library's private or undocumented names, and the one place that says so.

Each such library is pinned here: the version installed must be the one the lock file pins and the one
its names were checked against, so `make lock` moving it fails this file, saying which of our modules
relies on what. Then each name is checked for the shape we rely on. The reasons for keeping each are in
docs/decisions/0005-private-names.md.

A scan of our code (not the tests) keeps the list whole: a private attribute (`._name`) of something
not ours, or an import of a private module, that is not listed here fails it. (It sees what we read and
call; a library's private attribute we only assign is listed here by hand.)
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Pin:
    checked: str  # the version whose names were read and found as below
    relies: dict[str, list[str]]  # our module -> the names it relies on


PINS: dict[str, Pin] = {
    "channels-redis": Pin(
        "4.3.0",
        {
            "live/layer.py": [
                "RedisPubSubChannelLayer._get_layer()",
                "RedisPubSubLoopLayer.channels, ._get_group_channel_name(), ._get_shard()",
                "RedisSingleShardConnection._lock, ._ensure_redis(), ._redis",
            ]
        },
    ),
    "django": Pin(
        "6.1.3",
        {
            "penta/request_threads.py": [
                "ASGIHandler.run_get_response() (overridden), .handle(), .chunk_size",
                "BaseHandler.load_middleware(is_async=)",
                "HttpResponseBase._handler_class (request_finished's sender)",
            ],
            "penta/sessions.py": ["cached_db.SessionStore._cache"],
            "core/statements.py": [
                "Field.get_col(), DatabaseOperations.get_db_converters(), Expression.get_db_converters()"
            ],
        },
    ),
    "daphne": Pin(
        "4.2.3",
        {
            "penta/server.py": [
                "Server.run() assigning .http_factory and .ws_factory",
                "CommandLineInterface.server_class, .parser",
                "HTTPFactory.buildProtocol(), WebRequest(**kwargs) to twisted's Request",
                "WebSocketProtocol.application_queue",
            ]
        },
    ),
    "autobahn": Pin(
        "26.11.1",
        {
            "penta/server.py": [
                "PerMessageDeflate._is_server, ._compressor, ._decompressor",
                "PERMESSAGE_COMPRESSION_EXTENSION[...]['PMCE']",
            ]
        },
    ),
    "asgiref": Pin("3.13.0", {"core/courier.py": ["SyncToAsync.threadlocal.main_event_loop(_pid)"]}),
    "django-axes": Pin(
        "8.3.1",
        {
            "accounts/throttle.py": [
                "AxesCacheHandler.cache",
                "axes.helpers.get_client_cache_keys()",
                "request.axes_locked_out, .axes_credentials, .axes_ip_address",
            ]
        },
    ),
}


def _locked(dist: str) -> str | None:
    text = (ROOT / "requirements" / "dev.txt").read_text()
    found = re.search(rf"^{re.escape(dist)}==(\S+)", text, re.MULTILINE | re.IGNORECASE)
    return found[1] if found else None


@pytest.mark.parametrize("dist", sorted(PINS))
def test_each_library_whose_private_names_we_use_is_the_version_they_were_checked_in(dist):
    pin = PINS[dist]
    installed, locked = version(dist), _locked(dist)
    relies = "; ".join(f"{module} relies on {', '.join(names)}" for module, names in pin.relies.items())
    assert installed == locked == pin.checked, (
        f"{dist} is {installed} here and {locked} in requirements/dev.txt, but its private names were "
        f"checked in {pin.checked}: {relies}. Check them in the new version (this file's tests say how "
        f"they are used), then move `checked` in tests/test_private_names.py."
    )


def _params(func) -> list[str]:
    return list(inspect.signature(func).parameters)


# -- channels-redis: live/layer.py -----------------------------------------------------------------------


def test_channels_redis_pubsub_internals():
    import redis.asyncio
    from channels_redis.pubsub import (
        RedisPubSubChannelLayer,
        RedisPubSubLoopLayer,
        RedisSingleShardConnection,
    )

    assert _params(RedisPubSubChannelLayer._get_layer) == ["self"]
    assert _params(RedisPubSubLoopLayer._get_group_channel_name) == ["self", "group"]
    assert _params(RedisPubSubLoopLayer._get_shard) == ["self", "channel_or_group_name"]
    assert _params(RedisSingleShardConnection._ensure_redis) == ["self"]

    async def shape():
        layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"])  # never connects
        loop_layer = layer._get_layer()
        assert isinstance(loop_layer, RedisPubSubLoopLayer) and loop_layer is layer._get_layer()
        assert isinstance(loop_layer.channels, dict)
        group_channel = loop_layer._get_group_channel_name("game_1")
        assert isinstance(group_channel, str)
        shard = loop_layer._get_shard(group_channel)
        assert isinstance(shard, RedisSingleShardConnection) and isinstance(shard._lock, asyncio.Lock)
        shard._ensure_redis()
        assert isinstance(shard._redis, redis.asyncio.Redis)
        await shard._redis.aclose()

    asyncio.run(shape())


# -- Django: penta/request_threads.py, penta/sessions.py, core/statements.py -----------------------------


def test_djangos_asgi_handler_is_still_the_one_request_threads_overrides():
    from django.core.handlers.asgi import ASGIHandler
    from django.core.handlers.base import BaseHandler
    from django.http import HttpResponse

    assert _params(ASGIHandler.run_get_response) == ["self", "request"]
    # Ours runs the sync chain where Django's awaits the async one, and does the rest as Django's does.
    source = inspect.getsource(ASGIHandler.run_get_response)
    assert "response._handler_class = self.__class__" in source
    assert "response.block_size = self.chunk_size" in source
    assert _params(ASGIHandler.handle) == ["self", "scope", "receive", "send"]
    assert "run_get_response" in inspect.getsource(ASGIHandler.handle)
    assert isinstance(ASGIHandler.chunk_size, int)
    assert _params(BaseHandler.load_middleware) == ["self", "is_async"]
    response = HttpResponse()
    assert response._handler_class is None
    assert "request_finished.send(sender=self._handler_class)" in inspect.getsource(type(response).close)


def test_djangos_cached_db_sessions_keep_their_cache_where_penta_sessions_wraps_it():
    from django.conf import settings
    from django.contrib.sessions.backends import cached_db
    from django.core.cache import caches

    store = cached_db.SessionStore()
    assert store._cache is caches[settings.SESSION_CACHE_ALIAS]
    for method in (cached_db.SessionStore.load, cached_db.SessionStore.exists, cached_db.SessionStore.save):
        assert "self._cache" in inspect.getsource(method)


def test_djangos_converter_hooks_that_core_statements_applies():
    from django.db import connection
    from django.db.models import JSONField
    from django.db.models.expressions import Col

    from dicegame.models import Turn

    field = Turn._meta.get_field("held")
    column = field.get_col("o")
    assert isinstance(field, JSONField) and isinstance(column, Col)
    assert _params(type(connection.ops).get_db_converters) == ["self", "expression"]
    converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
    value = "[true, false]"
    for convert in converters:
        value = convert(value, column, connection)
    assert value == [True, False]


# -- daphne and autobahn: penta/server.py --------------------------------------------------------------


def test_daphnes_server_still_builds_the_factories_penta_server_replaces():
    from daphne.cli import CommandLineInterface
    from daphne.http_protocol import HTTPFactory, WebRequest
    from daphne.server import Server
    from daphne.ws_protocol import WebSocketProtocol
    from twisted.web.http import Request

    run = inspect.getsource(Server.run)
    assert "self.http_factory = HTTPFactory(self)" in run
    assert run.index("self.ws_factory = WebSocketFactory(") < run.index("self.ws_factory.setProtocolOptions(")
    assert CommandLineInterface.server_class is Server
    assert hasattr(CommandLineInterface(), "parser")
    assert "server_class(" in inspect.getsource(CommandLineInterface.run)
    assert _params(HTTPFactory.buildProtocol) == ["self", "addr"]
    assert "http.Request.__init__(self, *args, **kwargs)" in inspect.getsource(WebRequest.__init__)
    assert "parsePOSTFormSubmission" in _params(Request.__init__)
    assert "self.application_queue = application_queue" in inspect.getsource(WebSocketProtocol)


def test_autobahns_deflate_keeps_its_zlib_contexts_where_the_lean_one_lets_them_go():
    from autobahn.websocket.compress import PERMESSAGE_COMPRESSION_EXTENSION, PerMessageDeflate

    deflate = PerMessageDeflate(True, True, True, 12, 12, 5)
    assert deflate._is_server is True and deflate._compressor is None and deflate._decompressor is None
    deflate.start_compress_message()
    deflate.compress_message_data(b"penta " * 100)
    deflate.end_compress_message()
    assert deflate._compressor is not None  # what penta.server.LeanPerMessageDeflate lets go
    assert PERMESSAGE_COMPRESSION_EXTENSION[PerMessageDeflate.EXTENSION_NAME]["PMCE"] is PerMessageDeflate


# -- asgiref: core/courier.py --------------------------------------------------------------------------


def test_asgiref_records_the_event_loop_a_sync_thread_works_for():
    from asgiref.sync import SyncToAsync, sync_to_async

    def seen():
        local = SyncToAsync.threadlocal
        return local.main_event_loop, local.main_event_loop_pid

    async def main():
        loop, pid = await sync_to_async(seen, thread_sensitive=False)()
        assert loop is asyncio.get_running_loop() and pid == os.getpid()

    asyncio.run(main())


# -- django-axes: accounts/throttle.py -----------------------------------------------------------------


def test_axes_cache_handler_and_helpers_as_the_throttle_uses_them():
    import axes.middleware
    from axes.handlers.cache import AxesCacheHandler
    from axes.helpers import get_client_cache_keys

    assert hasattr(AxesCacheHandler(), "cache")
    assert _params(get_client_cache_keys) == ["request_or_attempt", "credentials"]
    middleware = inspect.getsource(axes.middleware)
    assert "axes_locked_out" in middleware and "axes_credentials" in middleware
    assert "request.axes_ip_address" in inspect.getsource(AxesCacheHandler)


# -- the scan: nothing private of another library goes unlisted ----------------------------------------

# Underscore names documented as public API: Django's (Model._meta, its managers, ModelState) and the
# standard library's named tuples' (urllib's split results are named tuples).
DOCUMENTED = {
    "_meta",
    "_default_manager",
    "_base_manager",
    "_state",
    "_replace",
    "_asdict",
    "_fields",
    "_make",
}
LISTED = {
    "_get_layer", "_get_group_channel_name", "_get_shard", "_lock", "_ensure_redis", "_redis",
    "_handler_class", "_cache", "_is_server", "_compressor", "_decompressor",
}  # fmt: skip
PRIVATE_MODULES = re.compile(r"(^|\.)_|trans_real")


def _our_files() -> list[Path]:
    packages = [p for p in ROOT.iterdir() if (p / "__init__.py").exists() and p.name != "tests"]
    return [f for p in [*packages, ROOT / "bench"] for f in p.rglob("*.py") if "migrations" not in f.parts]


def _defined(trees) -> set[str]:
    """Every name our own code defines: functions, classes, assignments, arguments, __slots__."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif (
                isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("_")
            ):
                names.add(node.value)  # __slots__, setattr
    return names


def test_no_module_uses_a_private_name_of_another_library_that_is_not_listed_here():
    trees = {path: ast.parse(path.read_text(), str(path)) for path in _our_files()}
    ours = _defined(trees.values()) - LISTED
    found = []
    for path, tree in trees.items():
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                if node.attr not in ours | DOCUMENTED | LISTED:
                    found.append(f"{where}:{node.lineno}: .{node.attr}")
            elif isinstance(node, ast.Attribute) and node.attr == "trans_real":
                found.append(f"{where}:{node.lineno}: trans_real")
            elif isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
                if PRIVATE_MODULES.search(node.module):
                    found.append(f"{where}:{node.lineno}: from {node.module}")
            elif isinstance(node, ast.Import):
                found += [
                    f"{where}:{node.lineno}: import {a.name}"
                    for a in node.names
                    if PRIVATE_MODULES.search(a.name)
                ]
    assert not found, (
        "private names of other libraries, not pinned in tests/test_private_names.py:\n" + "\n".join(found)
    )
