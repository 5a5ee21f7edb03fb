"""The kernels' own benchmarks and the intent prior's training: harnesses, never imported at run time.

- `checker`: the runtime guard's cost per sentence (`voicecoach bench guard`);
- `prior`: the intent prior's training (`python -m voicecoach.bench.prior train`), its test sets and
  its figures (`voicecoach bench prior`);
- `realizer`: the grounded realization of CoachBench turns, scored by the checker
  (`voicecoach bench realizer`);
- `slot_rules`: QuerySlots by rules (and by the LLM slot call) against CoachBench's references
  (`voicecoach bench slots`).

The runtime modules they measure (`voicecoach.talker.checker`, `voicecoach.perception.prior`,
`voicecoach.talker.realizer`,
`voicecoach.grounding.slot_rules`) import nothing from here, nor from `voicecoach.bench.coachbench`.
"""
