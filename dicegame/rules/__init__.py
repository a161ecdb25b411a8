"""The rules of Penta, pure Python (no Django): the scoresheet and its scoring (`scoring`), a turn's
limits (`turn`), the dice everyone can check (`dice`), the calendar of the daily games (`days`) and
what a typed name may hold (`names`). RULES.md is normative; `tests/dicegame/rules/` checks them against
its worked examples."""
