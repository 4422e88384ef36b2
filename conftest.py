"""Root conftest: enables pytester for the plugin's own integration tests."""

pytest_plugins = ["pytester"]
