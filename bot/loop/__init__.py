"""The message loop: intake → drafting (the steps of `steps.py`) → sending → retention, its scheduler, supervisor and app."""
