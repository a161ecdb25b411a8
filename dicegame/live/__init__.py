"""Live play: games against friends as they happen, and everything that reaches a screen unasked.

- `rooms`: rooms, seats, invitations, the start, seats kept by the computer, rematches, expiry (services)
- `views`: the room screens' thin views
- `consumers`: the game socket (players and spectators); `notice_socket`: every logged-in page's socket
- `pushes`: after a change commits, each screen's regions rendered once and sent; `notices` to users
- `presence`: which process holds which socket, process heartbeats, and the sweep of dead processes
- `limits`: message rate limits and socket caps; `protocol`: what a socket may send
- `clock`: the game clock (auto-commits, turn timers, computer moves, expiry, presence sweep)
- `routing`: the socket URLs
"""
