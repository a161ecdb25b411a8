"""Reviewing past games, one module per concern (import from the module, not from here):

- the stored analysis each page reads is `analysis.store`; which games count is `dicegame.records`;
- `replay`: the review page of one game (step-by-step replay, sheets, charts);
- `stats`: a player's statistics and head-to-head records;
- `leaderboards`: the boards among friends and site-wide;
- `exports`: a game's JSON export and a player's CSV history.

Access checks stay in the views' callers: a game is reviewed only through `selectors.game_for_viewer`,
a player's statistics only after `stats.player_visible`.
"""
