"""What the tests share: factories, games made and played for a test, WebSocket clients, the servers a
test starts (daphne, run_timers, PostgreSQL), and the fixtures the conftest files install."""
