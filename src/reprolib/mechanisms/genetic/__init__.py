"""Genetic search over discrete datasets: Private-GSD."""
