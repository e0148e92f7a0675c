"""The deep-generator baselines: generators trained on a private release of the data (DP-MERF's
noisy mean embedding) or with private training (DP-SGD, PATE; not yet re-implemented).
"""
