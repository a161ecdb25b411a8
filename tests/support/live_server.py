"""Runs in the daphne test server's own process (spawned): imports nothing of the project's models at
module level, because the child unpickles these functions before Django is set up."""


def make_application():
    import django

    django.setup()
    from channels.routing import get_default_application

    return get_default_application()


def use_test_database():
    """Point the server at the database the tests created."""
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = settings.PENTA_TEST_DATABASE_NAME
