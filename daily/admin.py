from django.contrib import admin

from daily.models import DailySeed


@admin.register(DailySeed)
class DailySeedAdmin(admin.ModelAdmin):
    # The seed is not listed: an admin page is not a place for a secret that decides today's dice.
    list_display = ("date", "commitment", "published_at")
    fields = ("date", "commitment", "published_at")
    readonly_fields = ("date", "commitment", "published_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
