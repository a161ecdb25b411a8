"""Live play: everything that reaches a screen unasked, and who is there to see it.

- `pushes`: after a change commits (`events.GameChanged`), each kind of screen's regions rendered once
  and sent through the process's courier; then `events.BoardPushed`
- `presence`, `models`: which process holds which socket, process heartbeats, the sweep of dead processes
  (registered with the clock in `apps`)
- `protocol`: what a game socket may send; `limits`: how often, and how many sockets
- `echo`: the benchmarks' bare consumer

The sockets themselves are the web's (`live.consumers`); rooms and seats are play's
(`dicegame.play.rooms`); the production server is `penta.server`.
"""
