from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self):
        # Imported here: an app's modules load once every app's models have.
        from dicegame import events
        from dicegame.play import selectors as play_selectors
        from dicegame.play import sweeper
        from tournaments import pushes, rounds, selectors

        # A round's game ending: its total joins the standings, inside the game's own transaction.
        events.subscribe(events.GameFinished, rounds.on_game_finished)
        events.subscribe(events.AccountMarked, rounds.on_account_marked)
        # Once its round has closed, a round's game may be seen by whoever may see the tournament.
        play_selectors.register_viewer_rule(lambda game, actor: selectors.game_viewable(game, actor.user_id))
        # The clock, with no page open: rounds closing at the end of their window (their games closed
        # with the boxes written), the standings pushed, the weekly tournament made ahead.
        sweeper.register(rounds.sweep, every=1.0)
        sweeper.register(pushes.push_due, every=1.0)
        sweeper.register(rounds.weekly_sweep, every=sweeper.EXPIRY_SWEEP_SECONDS)
