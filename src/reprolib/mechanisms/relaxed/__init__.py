"""The relaxed projection engine (RAP's differentiable relaxation) and MWEM with it (MWEM+RP)."""
