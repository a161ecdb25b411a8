"""Shared infrastructure, no game rules: what several apps use to cache, broadcast, measure and answer.

- `courier`: a process's pushes to the channel layer, after the commit, in order;
- `versions`: the cache versions of what the pages show, bumped where it changes;
- `statements`: the two statements of the turn flow the ORM cannot express (an UPDATE that returns
  the row; on PostgreSQL the game's lock with its seats and turn in play);
- `charts`: SVG charts made as strings;
- `metrics`: the operators' Prometheus metrics;
- `http`: the answers every view shares (a refusal's message, htmx or not);
- `converters`: the URL converters (`id`);
- `devices`: a browser's name from its User-Agent ("Firefox, Android").
"""
