import pytest

# The page helpers assert as tests do: rewritten like a test module, a failure shows the values compared.
pytest.register_assert_rewrite("tests.browser.pages")
