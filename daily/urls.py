from django.urls import path

from daily import views

urlpatterns = [
    path("commitments/", views.commitments, name="commitments"),
]
