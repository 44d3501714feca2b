pytest_plugins = ["tests.servers.fixtures"]
