pytest_plugins = ["tests.servers.fixtures", "tests.servers.api_fixtures"]
