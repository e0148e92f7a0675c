"""Select-measure-generate mechanisms on marginals, all on the Private-PGM engine: AIM, MST,
MWEM+PGM, Independent, PrivBayes+PGM, and the Gaussian workload baseline (answers only).
"""
