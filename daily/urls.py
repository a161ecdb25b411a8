from django.urls import path

from daily import views

urlpatterns = [
    path("", views.today, name="today"),
    path("play/", views.play, name="play"),
    path("all-time/", views.all_time, name="all_time"),
    path("commitments/", views.commitments, name="commitments"),
    path("<str:date>/", views.day, name="day"),
]
