"""Shared plumbing every layer reads: the live-state model, the turn clock and S2FA arithmetic, the
console."""
