"""Approved-answer memory, the part without a database: how close a new question is to an approved one (`match`), and
the model's check that an approved answer, as it is, answers the new question (`check`).

Its other layers: `review.answer_memory` stores the curated answers (rows, versions of the cited documents, staleness),
and `bot.learning.answer_memory` drafts from them."""
