"""CoachBench: the paper's 200-session quality benchmark (§7, appendices B and G) over a domain pack.

- `generator`: seeded sessions with live-state snapshots, utterances, references and drift tags;
- `checker`: the deterministic per-turn grounding check (G.3) against the shared reference;
- `metrics`: TGA / SGA (eq. 5), drift incidence, latency, McNemar, W1 intent accuracy, LLM judge (G.6);
- `runner`: runs the five configurations through the text-mode coach and writes Table 3.

Only `runner` touches Pipecat; the rest are pure kernels.
"""
