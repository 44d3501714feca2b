"""Slack: intake of student messages, replies in their thread, and the review UI."""
