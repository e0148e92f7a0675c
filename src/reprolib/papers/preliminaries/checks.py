"""Checks of the preliminaries chapter's conversions, with the reference values they compare to."""

from __future__ import annotations

import numpy as np

from reprolib.experiments._checks import Check, CheckContext, Outcome, regression_check

ARTIFACT = "prelim-conversions"
DATA = "closed forms (no data)"

# rho = cdp_rho(eps, 1e-9) of the AIM reference code (private-pgm, cdp2adp.py), as tabulated in the
# project notes (notes/aim.md, section 2.1) to five significant figures; eps = 10^(k/2), k=-4..4.
AIM_CODE_RHO_AT_DELTA_1E9 = {
    0.01: 2.0954e-6, 10**-1.5: 1.9219e-5, 0.1: 1.7714e-4, 10**-0.5: 1.6347e-3, 1.0: 0.014973,
    10**0.5: 0.13310, 10.0: 1.0908, 10**1.5: 7.5978, 100.0: 42.380,
}
# sigma of a sensitivity-1 Gaussian at delta = 1e-5 under the CKS conversion, for PrivPGD's three
# epsilons (notes/privpgd.md: 1.7577 / 4.0451 / 17.9096 for eps = 2.5 / 1.0 / 0.2).
CKS_SIGMA_AT_DELTA_1E5 = {2.5: 1.7577, 1.0: 4.0451, 0.2: 17.9096}


def _rows(frame, bound: str, delta: float):
    return frame[(frame["mechanism"] == bound) & np.isclose(frame["delta"], delta, rtol=1e-12)]


def _compare(frame, bound: str, delta: float, metric: str, reference: dict[float, float],
             rtol: float) -> Outcome:
    rows = _rows(frame, bound, delta)
    worst, found = 0.0, 0
    for eps, expected in reference.items():
        match = rows[np.isclose(rows["epsilon"], eps, rtol=1e-9)]
        if match.empty:
            continue
        found += 1
        worst = max(worst, abs(float(match[f"metric.{metric}"].iloc[0]) / expected - 1.0))
    ok = found == len(reference) and worst <= rtol
    return Outcome("pass" if ok else "fail",
                   f"{found}/{len(reference)} values recorded, max rel. diff {worst:.1e}",
                   f"all within {rtol:g} (printed precision)")


def _aim_rho(scale: str) -> Check:
    return Check(
        id=f"prelim-aim-code-rho-{scale}", artifact=ARTIFACT, kind="exact", scale=scale, data=DATA,
        description="CKS rho for AIM's epsilon grid at delta=1e-9 equals the AIM code's cdp_rho",
        evaluate=lambda ctx: _compare(ctx.results(ARTIFACT, scale), "cks", 1e-9, "rho",
                                      AIM_CODE_RHO_AT_DELTA_1E9, rtol=5e-5),
    )


def _cks_sigma(scale: str) -> Check:
    return Check(
        id=f"prelim-cks-sigma-{scale}", artifact=ARTIFACT, kind="exact", scale=scale, data=DATA,
        description="CKS Gaussian sigma (sensitivity 1, delta=1e-5) at eps 2.5/1/0.2 equals the "
                    "values computed with the PrivPGD repository's conversion code",
        evaluate=lambda ctx: _compare(ctx.results(ARTIFACT, scale), "cks", 1e-5, "sigma",
                                      CKS_SIGMA_AT_DELTA_1E5, rtol=5e-5),
    )


def _bun_steinke_closed_form(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results(ARTIFACT, scale)
    rows = rows[rows["mechanism"] == "bun-steinke"]
    log_inv = np.log(1.0 / rows["delta"].to_numpy())
    expected = (np.sqrt(log_inv + rows["epsilon"].to_numpy()) - np.sqrt(log_inv)) ** 2
    worst = float(np.max(np.abs(rows["metric.rho"].to_numpy() / expected - 1.0)))
    return Outcome("pass" if worst <= 1e-12 else "fail", f"{len(rows)} rows, max rel. diff {worst:.1e}",
                   "(sqrt(log(1/delta)+eps) - sqrt(log(1/delta)))^2 within 1e-12")


def _cks_tighter(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results(ARTIFACT, scale)
    pivot = rows.pivot_table(index=["delta", "epsilon"], columns="mechanism", values="metric.rho")
    gain = pivot["cks"] / pivot["bun-steinke"]
    ok = bool((gain >= 1.0).all()) and len(gain) > 0
    return Outcome("pass" if ok else "fail",
                   f"rho_CKS / rho_BS from {gain.min():.3f} to {gain.max():.3f} over {len(gain)} targets",
                   ">= 1 everywhere (CKS never allows less budget)")


def _roundtrip(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results(ARTIFACT, scale)
    ratio = rows["metric.eps_roundtrip"] / rows["epsilon"]
    ok = bool(((ratio <= 1.0 + 1e-12) & (ratio >= 1.0 - 1e-9)).all())
    return Outcome("pass" if ok else "fail",
                   f"eps(rho(eps))/eps in [{ratio.min():.12f}, {ratio.max():.12f}]",
                   "in [1 - 1e-9, 1 + 1e-12]: exact inverse, rounded on the safe side (rho never above the exact one)")


def _closed_form_checks(scale: str) -> list[Check]:
    return [
        Check(id=f"prelim-bun-steinke-{scale}", artifact=ARTIFACT, kind="exact", scale=scale,
              data=DATA, description="Bun-Steinke rho equals its closed-form inverse",
              evaluate=lambda ctx: _bun_steinke_closed_form(ctx, scale)),
        Check(id=f"prelim-cks-tighter-{scale}", artifact=ARTIFACT, kind="claim", scale=scale,
              data=DATA, description="CKS (2020) is never looser than Bun-Steinke (2016)",
              evaluate=lambda ctx: _cks_tighter(ctx, scale)),
        Check(id=f"prelim-roundtrip-{scale}", artifact=ARTIFACT, kind="exact", scale=scale,
              data=DATA, description="rho_to_eps inverts eps_to_rho and errs on the safe side",
              evaluate=lambda ctx: _roundtrip(ctx, scale)),
    ]


CHECKS: list[Check] = [
    *(check for scale in ("smoke", "small", "paper") for check in
      (_aim_rho(scale), _cks_sigma(scale), *_closed_form_checks(scale))),
    regression_check(ARTIFACT, ["rho", "sigma"], rtol=1e-9, data=DATA),
]
