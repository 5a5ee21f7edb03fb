"""CoachBench: the paper's 200-session quality benchmark (§7, appendices B and G) over a domain pack.

- `generator`: seeded sessions with live-state snapshots, utterances, references and drift tags;
- `checker`: the deterministic per-turn judge against the shared reference: speakable and grounded
  (the kernel `voicecoach.talker.checker`, shared with the runtime guard) and responsive (`responsive`);
- `packdata`: the pack's CoachBench data (phrase tables, responsive families);
- `calibration`: the hand-labelled calibration set and the checker's agreement with it;
- `metrics`: TGA / SGA (eq. 5), drift incidence, latency, McNemar, W1 intent accuracy, LLM judge (G.6);
The runner (five configurations through the text-mode coach, Table 3) is
`voicecoach.pipelines.bench.quality`; everything here is a pure kernel.
"""
