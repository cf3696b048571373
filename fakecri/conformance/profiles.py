"""The kubelet generations that can judge the relist path (kept import-light for the CLI).

Each maps to (relist period, extra cache tick) in seconds. The legacy Evented PLEG
relists every 300 s with a 2 s global cache tick; the suite scales the relist down to
2 s so it can wait for it. The current kubelet relists every second.
"""
PROFILE_PERIODS: dict[str, tuple[float, float]] = {"current": (1.0, 0.0), "legacy-evented": (2.0, 2.0)}
PROFILES = tuple(PROFILE_PERIODS)
