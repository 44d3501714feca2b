"""Learning from staff: the approved-answer memory, conversations (threads, follow-ups, closings), gate (re)training."""
