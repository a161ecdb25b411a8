"""Queries run on every action or every page, compiled to SQL once instead of on every run.

Django compiles a queryset to SQL each time it runs: about 0.3 ms of CPU for a small query (0.7 ms for
one with a join and two subqueries), and as much again to turn rows into models, against some 0.05 ms
for the database to answer. The turn flow runs the same four statements on every live action, and the
pages their few reads of the person (friends, the waiting count, a puzzle rating) on every view, so
here each is compiled once (per database connection object, which is per thread) from an ordinary
queryset or model, and run again with new parameters; rows come back as model instances through the
converters Django itself would apply. No SQL is written by hand except the one statement the ORM
cannot express: an UPDATE that returns the row.
"""

from __future__ import annotations

import datetime as dt
import inspect
import weakref
from collections.abc import Callable, Sequence

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.signals import post_init, pre_init

DEFAULT_DB = "default"


def row_builder(model: type[Model], attnames: Sequence[str]) -> Callable[[Sequence], Model]:
    """What makes a model instance from a row of `attnames` (already converted), as `Model.from_db`
    would.

    A row of every concrete field needs none of `Model.__init__`'s generic work (positional and keyword
    arguments, deferred fields, a descriptor per foreign key that looks for a cached related object a
    new instance cannot have, two signals nobody listens to for these models): its values go straight
    into the instance's dict. That was a third of the CPU of the lock that starts every action (four
    instances, some sixty fields). A model with an `__init__` of its own, a field set through its
    attribute, or init signal receivers when it is compiled goes through `from_db`."""
    names = tuple(attnames)
    concrete = {f.attname for f in model._meta.concrete_fields}
    # A field whose attribute does something when set (a file's), other than a foreign key's id (which
    # only forgets a cached related object), must be set through it.
    setters = [
        name
        for name in concrete
        if hasattr(type(inspect.getattr_static(model, name, None)), "__set__")
        and not isinstance(inspect.getattr_static(model, name), ForeignKeyDeferredAttribute)
    ]
    if (
        model.__init__ is not Model.__init__
        or set(names) != concrete
        or len(names) != len(concrete)
        or setters
        or pre_init.has_listeners(model)
        or post_init.has_listeners(model)
    ):
        return lambda values: model.from_db(DEFAULT_DB, names, values)
    new = model.__new__

    def build(values: Sequence) -> Model:
        instance = new(model)
        state = ModelState()
        state.adding = False
        state.db = DEFAULT_DB
        instance._state = state
        instance.__dict__.update(zip(names, values, strict=True))
        return instance

    return build


class _Compiled:
    def __init__(self, model: type[Model], sql: str, attnames: list[str], compiler, converters, slots=None):
        self.model = model
        self.sql = sql
        self.attnames = attnames
        self.compiler = compiler
        self.converters = converters
        self.build = row_builder(model, attnames)
        # (the compiled parameters, where the caller's go, how each is written), when the query has
        # constants of its own or parameters the connection writes otherwise (SQLite: dates as text)
        self.slots = slots

    def run(self, connection, params) -> list[Model]:
        """Execute with `params`; the rows as models."""
        if self.slots is not None:
            constants, where, adapters = self.slots
            full = list(constants)
            for position, adapt, value in zip(where, adapters, params, strict=True):
                full[position] = value if adapt is None else adapt(value)
            params = full
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if self.converters:
            rows = self.compiler.apply_converters(rows, self.converters)
        build = self.build
        return [build(row) for row in rows]


def _adapter(connection, value) -> Callable | None:
    """How the connection writes a value of this type among a query's parameters, when it is not as it
    is (SQLite: dates and times as ISO text; PostgreSQL: as they are)."""
    if isinstance(value, dt.datetime):
        adapt = connection.ops.adapt_datetimefield_value
    elif isinstance(value, dt.date):
        adapt = connection.ops.adapt_datefield_value
    else:
        return None
    return None if adapt(value) == value else adapt


class _PerConnection:
    """Compiled once per database connection object (one per thread): a compiler belongs to one."""

    def __init__(self):
        self._compiled: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _compile(self, connection) -> _Compiled:
        raise NotImplementedError

    def _run(self, params) -> list[Model]:
        connection = connections[DEFAULT_DB]
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self._compile(connection)
        return compiled.run(connection, params)


class PreparedSelect(_PerConnection):
    """`build(*params)` makes the queryset; its SQL is compiled once and reused for any params (which
    must appear in the SQL in the order given, as they do for simple filters).

    A query with constants of its own (a choice, a flag: PostgreSQL's SQL inlines `NOT flag` where
    SQLite's passes the value) takes a sample of values found nowhere else in its parameters: each
    must appear exactly once, and is where the caller's value goes."""

    def __init__(self, build: Callable[..., QuerySet], sample: Sequence):
        super().__init__()
        self.build = build
        self.sample = tuple(sample)

    def _compile(self, connection) -> _Compiled:
        queryset = self.build(*self.sample)
        compiler = queryset.query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        params = tuple(params)
        slots = None
        adapters = [_adapter(connection, v) for v in self.sample]
        if params != self.sample or any(adapters):
            written = [
                v if adapt is None else adapt(v) for v, adapt in zip(self.sample, adapters, strict=True)
            ]
            # Equal and of the same type (False == 0 in Python): where each sample value is.
            where = [[i for i, p in enumerate(params) if type(p) is type(v) and p == v] for v in written]
            if any(len(found) != 1 for found in where):
                raise ValueError(f"cannot prepare {queryset.query}: its parameters are {params!r}")
            slots = (params, [found[0] for found in where], adapters)
        expressions = [column for column, _sql, _alias in compiler.select]
        attnames = [column.target.attname for column in expressions]
        converters = compiler.get_converters(expressions)
        return _Compiled(queryset.model, sql, attnames, compiler, converters, slots)

    def fetch(self, *params) -> list[Model]:
        return self._run(params)


class PreparedUpdate:
    """`UPDATE <table> SET <fields> WHERE id = ...` for one model and one set of fields."""

    def __init__(self, model: type[Model], field_names: Sequence[str]):
        self.model = model
        self.fields = [model._meta.get_field(name) for name in field_names]
        self._sql: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _compile(self, connection) -> str:
        quote = connection.ops.quote_name
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in self.fields)
        pk = self.model._meta.pk.column
        return f"UPDATE {quote(self.model._meta.db_table)} SET {assignments} WHERE {quote(pk)} = %s"

    def save(self, instance: Model) -> None:
        connection = connections[DEFAULT_DB]
        sql = self._sql.get(connection)
        if sql is None:
            sql = self._sql[connection] = self._compile(connection)
        params = [f.get_db_prep_save(getattr(instance, f.attname), connection) for f in self.fields]
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, instance.pk])


_updates: dict[tuple, PreparedUpdate] = {}


def save_fields(instance: Model, fields: Sequence[str]) -> None:
    """`instance.save(update_fields=fields)` without the compiler (and without save signals, which
    these models do not have)."""
    key = (type(instance), tuple(fields))
    update = _updates.get(key)
    if update is None:
        update = _updates[key] = PreparedUpdate(type(instance), fields)
    update.save(instance)


class PreparedUpdateReturning(_PerConnection):
    """`UPDATE <table> SET <assignments> WHERE id = %s RETURNING <every column>`: a row lock, the
    row, and a change to it in one statement. `assignments` is SQL over the table's columns with %s
    placeholders, given after them the id."""

    def __init__(self, model: type[Model], assignments: Callable[[Callable[[str], str]], str]):
        super().__init__()
        self.model = model
        self.assignments = assignments

    def _compile(self, connection) -> _Compiled:
        quote = connection.ops.quote_name
        meta = self.model._meta
        fields = list(meta.concrete_fields)
        columns = ", ".join(quote(field.column) for field in fields)
        sql = (
            f"UPDATE {quote(meta.db_table)} SET {self.assignments(quote)} "
            f"WHERE {quote(meta.pk.column)} = %s RETURNING {columns}"
        )
        compiler = self.model._base_manager.none().query.get_compiler(connection=connection)
        expressions = [field.get_col(meta.db_table) for field in fields]
        converters = compiler.get_converters(expressions)
        return _Compiled(self.model, sql, [f.attname for f in fields], compiler, converters)

    def fetch(self, *params) -> Model | None:
        rows = self._run(params)
        return rows[0] if rows else None


class PreparedLockAndRead:
    """PostgreSQL only: `UPDATE <parent> SET <assignments> WHERE id = %s RETURNING ...` with, in the same
    statement, the parent's children of one model (`many`, in `many_order`) and its first child of
    another (`first`, the rows `first_where` keeps, in `first_order`): a game's lock and new version, its
    seats and its turn in play in one round trip instead of three.

    The children are read in the statement's snapshot, taken before it waited for the row lock. If
    another transaction held the lock and changed the parent meanwhile, the parent comes back as that
    transaction left it, but the children as they were before: the snapshot's version (read in the
    same statement) then differs from the one before the new bump, and `fetch` answers `stale`, so the
    caller reads the children again in statements of their own. Every change to a game's seats or turns
    holds the game's lock and counts a new version (the pushes rely on it too)."""

    def __init__(
        self,
        model: type[Model],
        assignments: Callable[[Callable[[str], str]], str],
        version: str,
        many: tuple[type[Model], str, str],
        first: tuple[type[Model], str, Callable[[Callable[[str], str]], str], str],
    ):
        self.model = model
        self.assignments = assignments
        self.version = version
        self.many = many
        self.first = first
        self._compiled: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @staticmethod
    def _part(model: type[Model], connection):
        """(its fields, what makes an instance from its columns of a row: Django's converters, then
        `row_builder`)."""
        meta = model._meta
        fields = list(meta.concrete_fields)
        compiler = model._base_manager.none().query.get_compiler(connection=connection)
        converters = compiler.get_converters([field.get_col(meta.db_table) for field in fields])
        build = row_builder(model, [f.attname for f in fields])
        if not converters:
            return fields, build

        def convert_and_build(values):
            return build(next(iter(compiler.apply_converters([values], converters))))

        return fields, convert_and_build

    def _compile(self, connection):
        quote = connection.ops.quote_name
        parent, (child, child_fk, child_order), (one, one_fk, one_where, one_order) = (
            self.model,
            self.many,
            self.first,
        )
        table, pk = quote(parent._meta.db_table), quote(parent._meta.pk.column)
        parts = [self._part(m, connection) for m in (parent, child, one)]

        def columns(alias, fields):
            return ", ".join(f"{alias}.{quote(f.column)}" for f in fields)

        sql = (
            f"WITH snap AS (SELECT {quote(self.version)} FROM {table} WHERE {pk} = %s), "
            f"g AS (UPDATE {table} SET {self.assignments(quote)} WHERE {pk} = %s "
            f"RETURNING {', '.join(quote(f.column) for f in parts[0][0])}) "
            f"SELECT {columns('g', parts[0][0])}, (SELECT {quote(self.version)} FROM snap), "
            f"{columns('c', parts[1][0])}, {columns('o', parts[2][0])} "
            f"FROM g JOIN {quote(child._meta.db_table)} c ON c.{quote(child_fk)} = g.{pk} "
            f"LEFT JOIN LATERAL (SELECT * FROM {quote(one._meta.db_table)} o1 "
            f"WHERE o1.{quote(one_fk)} = g.{pk} AND {one_where(lambda name: 'o1.' + quote(name))} "
            f"ORDER BY o1.{quote(one_order)} LIMIT 1) o ON TRUE "
            f"ORDER BY c.{quote(child_order)}"
        )
        return sql, parts

    def fetch(self, game_id, *params) -> tuple[Model, list[Model], Model | None, bool] | None:
        """(the parent, its children, the first of the others or None, stale), or None if no such row
        (or it has no children)."""
        connection = connections[DEFAULT_DB]
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self._compile(connection)
        sql, parts = compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, [game_id, *params, game_id])
            rows = cursor.fetchall()
        if not rows:
            return None
        (p_fields, p_build), (c_fields, c_build), (o_fields, o_build) = parts
        n_p, n_c = len(p_fields), len(c_fields)
        first_row = rows[0]
        parent = p_build(first_row[:n_p])
        snapshot_version = first_row[n_p]
        children = [c_build(row[n_p + 1 : n_p + 1 + n_c]) for row in rows]
        one_values = first_row[n_p + 1 + n_c :]
        pk_index = next(i for i, f in enumerate(o_fields) if f.primary_key)
        other = None if one_values[pk_index] is None else o_build(one_values)
        stale = getattr(parent, self.model._meta.get_field(self.version).attname) != snapshot_version + 1
        return parent, children, other, stale
