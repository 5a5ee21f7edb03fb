"""The voice pipeline: speech engines as Pipecat services, the embedded Whisper, and the stock cascade
it is compared with."""
