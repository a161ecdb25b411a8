"""The two statements of the turn flow that the ORM cannot express, and nothing else.

- `UpdateReturning`: `UPDATE ... RETURNING`, a row lock, a change and the changed row in one statement
  (the ORM's `update()` answers a count, `select_for_update()` then `save()` takes two statements).
- `LockAndRead` (PostgreSQL): the same, with in the same statement the rows of two other models that
  hang off the locked row (a game's seats and its turn in play): one round trip instead of three.

Every other query is an ordinary queryset. The SQL here is written over the models' own tables and
columns (`Model._meta`, quoted by the connection), and its rows become models the way the ORM makes
them: through `Model.from_db` and the converters Django applies to each column (`UpdateReturning` is a
raw queryset, which does both). Whether PostgreSQL prepares a statement it runs often is a setting
(penta.settings: server-side binding), not this module's business.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model

# What writes an assignment or condition over a table's columns: given the connection's quoting of a
# column name, the SQL (with %s placeholders).
Sql = Callable[[Callable[[str], str]], str]


class UpdateReturning:
    """`UPDATE <table> SET <assignments> WHERE <pk> = %s RETURNING <every column>`: a row lock, a change
    to the row and the row in one statement. `fetch(*params, pk)`: the assignments' parameters, then
    the id; the row as a model, or None if there is no such row."""

    def __init__(self, model: type[Model], assignments: Sql):
        self.model = model
        self.assignments = assignments
        self._sql: dict[str, str] = {}  # per database vendor (its quoting)

    def sql(self, connection) -> str:
        sql = self._sql.get(connection.vendor)
        if sql is None:
            quote = connection.ops.quote_name
            meta = self.model._meta
            columns = ", ".join(quote(field.column) for field in meta.concrete_fields)
            sql = self._sql[connection.vendor] = (
                f"UPDATE {quote(meta.db_table)} SET {self.assignments(quote)} "
                f"WHERE {quote(meta.pk.column)} = %s RETURNING {columns}"
            )
        return sql

    def fetch(self, *params) -> Model | None:
        sql = self.sql(connections[DEFAULT_DB_ALIAS])
        # A raw queryset: Django adapts the parameters, converts the columns and builds the model.
        rows = list(self.model._default_manager.raw(sql, params))
        return rows[0] if rows else None


def _builder(model: type[Model], table_alias: str, connection):
    """What makes a `model` from the values of its concrete columns, in `_meta.concrete_fields` order
    (`build(values, connection)`, a connection of the same backend): each value through the converters
    a query's compiler collects for its column (the backend's, then the field's `from_db_value`), then
    `Model.from_db`."""
    fields = list(model._meta.concrete_fields)
    names = [field.attname for field in fields]
    steps = []
    for index, field in enumerate(fields):
        column = field.get_col(table_alias)
        converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if converters:
            steps.append((index, column, converters))

    def build(values, connection) -> Model:
        if steps:
            values = list(values)
            for index, column, converters in steps:
                value = values[index]
                for convert in converters:
                    value = convert(value, column, connection)
                values[index] = value
        return model.from_db(connection.alias, names, values)

    return fields, build


class LockAndRead:
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
        assignments: Sql,
        version: str,
        many: tuple[type[Model], str, str],
        first: tuple[type[Model], str, Sql, str],
    ):
        self.model = model
        self.assignments = assignments
        self.version = version
        self.many = many
        self.first = first
        self._compiled: dict[str, tuple] = {}  # the SQL and the builders, per database vendor

    def _compile(self, connection):
        quote = connection.ops.quote_name
        parent, (child, child_fk, child_order), (one, one_fk, one_where, one_order) = (
            self.model,
            self.many,
            self.first,
        )
        table, pk = quote(parent._meta.db_table), quote(parent._meta.pk.column)
        parts = [_builder(m, alias, connection) for m, alias in ((parent, "g"), (child, "c"), (one, "o"))]

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
        connection = connections[DEFAULT_DB_ALIAS]
        compiled = self._compiled.get(connection.vendor)
        if compiled is None:
            compiled = self._compiled[connection.vendor] = self._compile(connection)
        sql, parts = compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, [game_id, *params, game_id])
            rows = cursor.fetchall()
        if not rows:
            return None
        (p_fields, p_build), (c_fields, c_build), (o_fields, o_build) = parts
        n_p, n_c = len(p_fields), len(c_fields)
        first_row = rows[0]
        parent = p_build(first_row[:n_p], connection)
        snapshot_version = first_row[n_p]
        children = [c_build(row[n_p + 1 : n_p + 1 + n_c], connection) for row in rows]
        one_values = first_row[n_p + 1 + n_c :]
        pk_index = next(i for i, f in enumerate(o_fields) if f.primary_key)
        other = None if one_values[pk_index] is None else o_build(one_values, connection)
        stale = getattr(parent, self.model._meta.get_field(self.version).attname) != snapshot_version + 1
        return parent, children, other, stale
