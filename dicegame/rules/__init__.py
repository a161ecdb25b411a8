"""The rules of Penta, pure Python (no Django): the scoresheet and its scoring (`scoring`), a turn's
limits (`turn`), the dice everyone can check (`dice`) and the calendar of the daily games (`days`).
RULES.md is normative; `tests/dicegame/rules/` checks them against its worked examples."""
