"""The game's web: the pages and their htmx answers (`views`, `rooms`, `local`), the sockets
(`consumers`, `routing`) and the URLs. Thin: each asks play to act and the screen to draw."""
