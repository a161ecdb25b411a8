"""Reviewing past games, one module per concern (import from the module, not from here):

- `records`: which games count for a person's records (stand-in turns, local games, leaving);
- `analysis_store`: a finished game's analysis, computed once and stored (`GameAnalysis`);
- `replay`: the review page of one game (step-by-step replay, sheets, charts);
- `stats`: a player's statistics and head-to-head records;
- `leaderboards`: the boards among friends and site-wide;
- `exports`: a game's JSON export and a player's CSV history.

Access checks stay in the views' callers: a game is reviewed only through `selectors.game_for_viewer`,
a player's statistics only after `stats.player_visible`.
"""
