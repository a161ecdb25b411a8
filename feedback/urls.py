from django.urls import path

from feedback import views

urlpatterns = [
    path("", views.report, name="report"),
    path("thanks/", views.thanks, name="thanks"),
]
