"""Email: parsing, skip rules, the Maildir/IMAP sources and the outbox/SMTP senders."""
