"""Where data is kept outside the models: the shared Redis pool and its keys, the read
replica router, and the erasure journal a restore replays."""
