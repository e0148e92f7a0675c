"""The deep-generator baselines: generators trained on a private release of the data (DP-MERF's
noisy mean embedding) or with private training (DP-CTGAN's DP-SGD discriminator, PATE-GAN's noisy
teacher votes).
"""
