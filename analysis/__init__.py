"""The analysis of finished games, worked out once and stored (`GameAnalysis`), shared by whatever reads
it: the review and the statistics, the daily's par, fair play's assessment, the puzzles.

- `store`: a game's stored analysis, computed on first ask when it is missing (`analysis_for`);
- `services`: the clock's sweep that analyses games soon after they end, off every answer's path.

The maths itself is pure: `dicegame.strategy.analysis`.
"""
