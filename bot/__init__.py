"""The edges and the loop, the only place that wires everything together.

Edges: `email/`, `slack/`, `cli/`, `console/`, `ops/`. The message loop: `loop/` (intake → drafting steps → sending → retention,
scheduler, supervisor). Learning from staff: `learning/` (answer memory, conversations, gate training). The demo and its
sample office: `demo/`. The wiring: `wiring/` (Services, metrics, logs)."""
