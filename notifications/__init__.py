"""Notifications that reach a person away from the game: "your turn" and a reminder near the end of a
correspondence move (as a live notice on the site's open pages, and by Web Push to their devices), and a
daily e-mail digest of the games waiting for them (opt-in, on a confirmed address).

Everything is queued inside the transaction that caused it (`Notification`, unique per turn and kind:
exactly once) and sent off the request path by the game clock's sweep (`services.send_push_due` and
`services.send_mail_due`; the pushes in a loop of their own: see `apps`), retried with a growing pause after a
transient failure. A device's push endpoint must be a public https address (`endpoints`), and each push
is bounded in time and in what it reads back (`transport`), sent side by side with others (`senders`)."""
