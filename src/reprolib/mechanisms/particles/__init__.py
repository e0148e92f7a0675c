"""Particle-based mechanisms: PrivPGD (particle gradient descent on sliced Wasserstein)."""
