"""The Talker: what the reply must, may and must not say (conditioning), the grounded realizer and its
recipes, the checker and the guard, and the baselines' prompts."""
