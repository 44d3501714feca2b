"""One router per area of the console; handlers parse, check the role, call the service the CLI and Slack call, render."""
