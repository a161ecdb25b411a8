"""Publish the daily challenge's commitments for today and the next 7 days (run it daily, e.g. by cron)."""

from django.core.management.base import BaseCommand

from daily.services import DAYS_AHEAD, publish_commitments


class Command(BaseCommand):
    help = f"Draw and commit to the daily challenge's seeds of today and the next {DAYS_AHEAD} days."

    def handle(self, *args, **options):
        created = publish_commitments()
        self.stdout.write(f"{created} new daily commitment(s) published.")
