"""Benchmarks that run the coach's pipelines: latency, load, quality (CoachBench), STT, turn timings."""
