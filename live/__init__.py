"""Live play: games against friends as they happen, and everything that reaches a screen unasked.

- `rooms`: rooms, seats, invitations, the start, seats kept by the computer, rematches, expiry (services)
- `views`: the room screens' thin views
- `consumers`: the game socket (players and spectators) and every logged-in page's notification socket
- `protocol`: what a game socket may send; `limits`: how often, and how many sockets
- `pushes`: after a change commits, each kind of screen's regions rendered once and sent; `notices` to users
- `presence`, `models`: which process holds which socket, process heartbeats, the sweep of dead processes
- `clock`: the game clock (auto-commits, turn timers, computer moves, expiry, the presence sweep)
- `routing`: the socket URLs; `server`: the production server (daphne, compressed and bounded sockets)
"""
