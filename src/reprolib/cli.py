"""The command line: ``reprolib list | run | batch | check | audit | rerun | prune | merge | doctor |
toc``.

Run ``reprolib --help`` or ``python -m reprolib --help``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reprolib._device import DEVICES
from reprolib.experiments import (
    COMPANION,
    SCALES,
    Artifact,
    artifact_status,
    artifacts_of,
    catalogue,
    get_artifact,
    reproduction_status,
)

if TYPE_CHECKING:
    import pandas as pd

    from reprolib._notebooks import NotebookRun
    from reprolib.experiments._staleness import OutputChange

DEFAULT_SCALE = "small"


def _print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)).rstrip())


def _list(args: argparse.Namespace) -> int:
    status = artifact_status(args.paper)
    rows = [["id", "paper", "title", "notebook", "results (" + "/".join(SCALES) + ")", "status"]]
    for _, row in status.iterrows():
        results = " ".join(s if row[f"results_{s}"] else "-" * len(s) for s in SCALES)
        reproduced = ("-" if row["paper"] == COMPANION else
                      reproduction_status(catalogue(), get_artifact(row["id"]))[0])
        rows.append([row["id"], row["paper"], row["title"][:60], row["notebook"], results,
                     reproduced])
    _print_table(rows)
    return 0


def _run(args: argparse.Namespace) -> int:
    from reprolib._notebooks import NotebookFailed, execute, literal, plan_run

    artifact = get_artifact(args.artifact)
    extra = {name: literal(value) for name, value in args.parameter}
    run = plan_run(artifact, scale=args.scale, device=args.device, extra=extra)
    try:
        seconds = execute(run, progress=True)
    except NotebookFailed as failure:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    print(f"{artifact.id}: {run.output} ({seconds:.1f} s)")
    return 0


def _dry_run(args: argparse.Namespace) -> int:
    from reprolib.experiments import plan_batch, summarise_plan

    plan = plan_batch(args.paper, args.scale)
    summary = summarise_plan(plan)
    if summary.empty:
        print(f"nothing to compute at scale {args.scale}: every cell is stored")
        return 0
    hours = ("hours", "hours_low", "hours_high")
    timed = plan.dropna(subset=["seconds"])["artifact"].value_counts()

    def shown(artifact: str, column: str, value: Any) -> str:
        if column == "artifact":
            return str(value)
        if column in hours:  # "?" where no cell of the artifact has an estimate
            return _hours_text(float(value)) if timed.get(artifact, 0) else "?"
        return str(int(value))

    _print_table([list(summary.columns)]
                 + [[shown(row["artifact"], c, v) for c, v in row.items()]
                    for _, row in summary.iterrows()])
    unknown = int((plan["basis"] == "none").sum())
    hours, low, high = (summary[c].sum(skipna=False) for c in ("hours", "hours_low", "hours_high"))
    print(f"\n{len(plan)} cell(s) to compute at scale {args.scale}, about {hours:.2f} hours "
          f"from recorded timings (range {_hours_text(low)} to {_hours_text(high)}; - where "
          "open, ? where nothing comparable is recorded)"
          + (f", plus {unknown} cell(s) with nothing comparable recorded" if unknown else "")
          + ". Bases: dataset = same mechanism, settings and dataset; mechanism = same mechanism "
            "and settings on other datasets (range: the fastest to the slowest of them); other "
            "settings = same mechanism, other hyper-parameters (no range); smaller scale = a "
            "lower bound; after its sources = listed once its inputs exist.")
    return 0


def _hours_text(hours: float) -> str:
    return "-" if math.isnan(hours) else f"{hours:.2f}"


def _on_cluster(args: argparse.Namespace, artifacts: list[str],
                outdated: Sequence[OutputChange] = ()) -> int:
    """Compute the artifacts' missing cells (with ``outdated``: re-run their cells whose rows
    predate those changes of code) on a Dask cluster.
    """
    from distributed import Client, LocalCluster

    from reprolib.experiments import compute_on_cluster, jobqueue_cluster

    if args.scheduler:
        client = Client(args.scheduler)
    elif args.jobqueue:
        system, jobs = args.jobqueue
        if system not in ("slurm", "pbs") or not jobs.isdigit():
            print(f"error: --jobqueue takes a system (slurm or pbs) and a number of jobs, got "
                  f"{system} {jobs}", file=sys.stderr)
            return 2
        client = Client(jobqueue_cluster(system, int(jobs), gpus_per_job=args.gpus_per_job))
    else:
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                     processes=True, dashboard_address=":0"))
    with client:
        print(f"Dask: {len(client.scheduler_info()['workers'])} worker(s) now; dashboard "
              f"{client.dashboard_link}", file=sys.stderr)
        failures = compute_on_cluster(client, artifacts, args.scale, device=args.device,
                                      outdated=outdated)
        if not args.scheduler:
            client.cluster.close()
    for failure in failures:
        print(f"FAIL  {failure}", file=sys.stderr)
    if failures:
        print(f"error: {len(failures)} cell(s) failed; the others are stored; run the same "
              "command again to retry them", file=sys.stderr)
        return 1
    return 0


def _batch(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    if args.dry_run:
        return _dry_run(args)
    if args.workers or args.scheduler or args.jobqueue:
        status = _on_cluster(args, [a for key, spec in catalogue().papers.items()
                                    if args.paper is None or key == args.paper
                                    for a in spec.experiments])
        if status:
            return status

    from reprolib._notebooks import NotebookFailed, execute, plan_run

    # scorecards read the others' results, so they run last: all of them, or the paper's own
    runnable = [a for a in artifacts_of(args.paper) if a.runnable and a.paper != COMPANION]
    runnable += [a for a in artifacts_of(COMPANION)
                 if args.paper is None or a.parameters.get("paper") == args.paper]
    runs: dict[Path, tuple[Artifact, NotebookRun]] = {}
    for artifact in runnable:  # artifacts sharing a notebook variant run it once
        run = plan_run(artifact, scale=args.scale, device=args.device)
        runs.setdefault(run.output, (artifact, run))
    failures = []
    with tqdm(total=len(runs), unit="notebook", file=sys.stderr) as bar:
        for artifact, run in runs.values():
            bar.set_description(artifact.id)
            try:
                seconds = execute(run)
                bar.write(f"ok    {artifact.id:<24} {seconds:7.1f} s  {run.output}")
            except NotebookFailed as failure:
                bar.write(f"FAIL  {artifact.id:<24} {failure}")
                failures.append(artifact.id)
            bar.update()
    if failures:
        print(f"error: {len(failures)} notebook(s) failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


def _check(args: argparse.Namespace) -> int:
    from reprolib.experiments import FAILING, checks_of, evaluate_checks, scorecard_frame

    checks = checks_of(args.paper)
    if not checks:
        print(f"no checks are defined for {args.paper!r} yet", file=sys.stderr)
        return 1
    card = scorecard_frame(evaluate_checks(checks))
    columns = ["status", "kind", "scale", "check", "observed"]
    _print_table([columns] + card[columns].astype(str).values.tolist())
    failed = card[card["status"].isin(FAILING)]
    passed = int((card["status"] == "pass").sum())
    counts = card["status"].value_counts()
    print(f"\n{passed} passed, {len(failed)} failed, {counts.get('deviation', 0)} documented "
          f"deviations from the paper, {counts.get('not-applicable', 0)} not applicable")
    for _, row in failed.iterrows():
        print(f"  {row['check']} ({row['status']}): observed {row['observed']}; "
              f"expected {row['expected']}", file=sys.stderr)
    return 1 if len(failed) else 0


def _audit(args: argparse.Namespace) -> int:
    from reprolib.experiments import audit_grid

    get_artifact(args.artifact)
    try:
        audit = audit_grid(args.artifact, args.scale, cells=args.cells, device=args.device,
                           progress=True)
    except LookupError as error:
        print(f"error: {error.args[0]}", file=sys.stderr)
        return 1
    moved = audit["relative_difference"] > args.rtol
    rows = [["cell", "recorded on", "at", "metrics", "moved most", "stored", "now", "rel. diff"]]
    rows += [[r.cell, r.recorded_on, r.recorded_at, str(r.metrics),
              *([r.worst_metric, f"{r.stored:.6g}", f"{r.recomputed:.6g}",
                 f"{r.relative_difference:.2e}"] if r.relative_difference else ["none", "", "", "0"])]
             for r in audit.itertuples()]
    _print_table(rows)
    print(f"\n{len(audit)} stored cell(s) recomputed, {int(moved.sum())} moved by more than "
          f"{args.rtol:g}")
    if moved.any() and not audit["same_cpu"].all():
        print("note: rows recorded on another kind of CPU agree only to the float noise of torch's "
              "and JAX's kernels; the artifact's regression check states the tolerance it allows")
    return 1 if moved.any() else 0


def _rerun(args: argparse.Namespace) -> int:
    from reprolib.experiments import (
        OUTPUT_CHANGES,
        checks_of,
        open_store,
        outdated_rows,
        rerun_outdated,
    )

    changes = [c for c in OUTPUT_CHANGES if args.change is None or c.commit.startswith(args.change)]
    if not changes:
        print(f"error: no registered change of code starts with {args.change}; they are "
              f"{', '.join(c.short for c in OUTPUT_CHANGES)}", file=sys.stderr)
        return 2
    if args.dry_run:
        return _rerun_dry_run(args, changes)
    if args.artifact is None:
        print("error: name the artifact to re-run (or pass --dry-run to list them all)",
              file=sys.stderr)
        return 2
    artifact = get_artifact(args.artifact)
    spots = None
    if args.spots:
        spots = next((c.small_spots for c in checks_of(artifact.paper)
                      if c.artifact == artifact.id and c.small_spots), None)
        if spots is None or args.scale != "small":
            print(f"error: --spots re-runs the small cells that {artifact.id}'s regression check "
                  "recomputes; "
                  + ("pass --scale small" if spots else "its check recomputes none"),
                  file=sys.stderr)
            return 2
    before = open_store(args.artifact, args.scale).frame()
    if args.workers or args.scheduler or args.jobqueue:
        status = _on_cluster(args, [args.artifact], outdated=changes)
    else:
        count = rerun_outdated(args.artifact, scale=args.scale, device=args.device,
                               progress=True, limit=args.cells, changes=changes, overrides=spots)
        left = len(outdated_rows(args.artifact, args.scale, changes=changes))
        said = [f"re-ran {count} cell(s) whose rows predated a change of code that can move them"
                if count else "nothing re-run"]
        if left:
            said.append(f"{left} such row(s) left (beyond --cells or --spots, or of cells "
                        f"outside the default grid: see --dry-run)")
        print(f"{args.artifact} [{args.scale}]: {'; '.join(said)}")
        status = 0
    _say_moves(before, open_store(args.artifact, args.scale).frame())
    return status


def _say_moves(before: pd.DataFrame, after: pd.DataFrame) -> None:
    """How far the re-run rows moved from the rows they replaced (nothing when none was)."""
    from reprolib.experiments import replacement_moves

    moves = replacement_moves(before, after)
    if moves.empty:
        return
    same = moves["relative_difference"] == 0
    said = f"{int(same.sum())} of {len(moves)} re-run row(s) reproduce every metric they replaced"
    if not same.all():
        worst = moves.loc[moves["relative_difference"].idxmax()]
        said += (f"; the largest move: {worst['worst_metric']} {worst['stored']:.6g} -> "
                 f"{worst['recomputed']:.6g} (relative {worst['relative_difference']:.2e})")
        elsewhere = moves[moves["recorded_on"] != moves["rerun_on"]]
        if len(elsewhere):
            said += (f"; {len(elsewhere)} of the replaced rows were recorded on another device "
                     f"({', '.join(sorted(set(elsewhere['recorded_on'])))}), where kernels' "
                     "float noise alone can move a run")
    print(said)


def _rerun_dry_run(args: argparse.Namespace, changes: Sequence[OutputChange]) -> int:
    """List, per store, the rows a re-run would replace, and count those it leaves because git
    cannot place them against a change; compute nothing.
    """
    from reprolib.experiments import outdated_rows, store_path
    from reprolib.experiments._staleness import UNPLACED

    readers: dict[Path, list[str]] = {}  # several artifacts may read one store
    for artifact in [get_artifact(args.artifact)] if args.artifact else artifacts_of():
        readers.setdefault(store_path(artifact.id, args.scale), []).append(artifact.id)
    rows = [["artifacts", "rows", "mechanisms", "predate", "hours as recorded"]]
    unplaced: dict[str, int] = {}
    for path, ids in readers.items():
        if not path.is_file():
            continue
        found = outdated_rows(ids[0], args.scale, changes=changes, unplaced=True)
        outdated = found[found["change"] != UNPLACED]
        if count := int((found["change"] == UNPLACED).sum()):
            unplaced[", ".join(ids)] = count
        if len(outdated):
            rows.append([", ".join(ids), str(len(outdated)),
                         ", ".join(sorted(set(outdated["mechanism"]))),
                         ", ".join(sorted(set(outdated["change"]))),
                         f"{outdated['wall_time_s'].sum() / 3600:.2f}"])
    if len(rows) == 1:
        print(f"every stored row at scale {args.scale} that git can place is current; nothing "
              "to re-run")
    else:
        _print_table(rows)
    if unplaced:
        print("not re-run: rows recorded after such a change was committed, at revisions this "
              "checkout cannot place (e.g. 'unknown', recorded outside a git checkout), which "
              "may predate it: " + "; ".join(f"{n} of {ids}" for ids, n in unplaced.items()))
    return 0


def _prune(args: argparse.Namespace) -> int:
    from reprolib.experiments import prune_stores

    dropped, skipped = prune_stores(args.scale)
    for path, count in dropped.items():
        if count:
            print(f"{path}: dropped {count} row(s) of cells no experiment asks for")
    if skipped:
        print(f"left alone: {', '.join(skipped)}, whose cells are read off runs not all stored "
              f"at scale {args.scale}")
    return 0


def _merge(args: argparse.Namespace) -> int:
    from reprolib._paths import results_dir
    from reprolib.experiments._store import ResultsStore

    target = results_dir()
    for source in args.sources:
        stores = sorted(source.glob("*/*/*.parquet"))
        if not stores:
            print(f"error: {source} holds no <paper>/<artifact>/<scale>.parquet stores",
                  file=sys.stderr)
            return 2
        for path in stores:
            added = ResultsStore(target / path.relative_to(source)).merge(ResultsStore(path),
                                                                         replace=args.replace)
            done = "new or re-run" if args.replace else "new"
            print(f"{path.relative_to(source)}: {added} {done} run(s) from {source}")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    del args
    import platform

    import jax
    import torch

    from reprolib._device import describe_device, jax_has_gpu, resolve_device
    from reprolib._paths import results_dir
    from reprolib.data import data_dir
    from reprolib.experiments import collect_provenance

    auto = resolve_device("auto")
    torch_gpu = ", ".join(
        f"{p.name} ({p.total_memory / 2**30:.0f} GiB)"
        for p in map(torch.cuda.get_device_properties, range(torch.cuda.device_count()))) or "none"
    jax_gpu = ", ".join(str(d.device_kind) for d in jax.devices("gpu")) if jax_has_gpu() else "none"
    rows = [["python", platform.python_version()],
            ["code", collect_provenance(auto)["git_revision"]],
            ["torch", f"{torch.__version__}; GPU: {torch_gpu}"],
            ["jax", f"{jax.__version__}; backend {jax.default_backend()}; GPU: {jax_gpu}"],
            ["--device auto", describe_device(auto)],
            ["data", f"{data_dir()} ({'found' if data_dir().is_dir() else 'missing'})"],
            ["results", str(results_dir())]]
    _print_table(rows)
    if auto == "cuda" and not jax_has_gpu():
        print("note: torch sees a GPU but JAX does not: RAP++, RAP and Private-PGM will run on the "
              "CPU. Install JAX's CUDA build (pip install 'jax[cuda13]') to use the GPU there.")
    return 0


def _toc(args: argparse.Namespace) -> int:
    from reprolib._paths import repo_root
    from reprolib._toc import render_toc

    path = repo_root() / "_toc.yml"
    text = render_toc(catalogue())
    if args.check:
        if path.is_file() and path.read_text() == text:
            return 0
        print(f"error: {path} is stale; run `reprolib toc` to regenerate it", file=sys.stderr)
        return 1
    path.write_text(text)
    print(f"wrote {path}")
    return 0


def _add_cluster_options(parser: argparse.ArgumentParser,
                         cluster: argparse._MutuallyExclusiveGroup, when: str) -> None:
    """The options that compute a command's cells on a Dask cluster (``when``: first, instead)."""
    cluster.add_argument("--workers", type=int, default=0, metavar="N",
                         help=f"compute the grids on a local Dask cluster of N processes {when}")
    cluster.add_argument("--scheduler", metavar="ADDRESS",
                         help=f"compute the grids on the Dask cluster at ADDRESS {when}")
    cluster.add_argument("--jobqueue", nargs=2, metavar=("SYSTEM", "JOBS"),
                         help=f"compute the grids {when} on JOBS batch jobs of SYSTEM (slurm or "
                              "pbs) through dask-jobqueue, one worker per job; cores, memory, "
                              "walltime, queue and account come from dask-jobqueue's config")
    parser.add_argument("--gpus-per-job", type=int, default=0, metavar="N",
                        help="with --jobqueue: GPUs each job requests (1: one worker per GPU)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``reprolib`` command."""
    parser = argparse.ArgumentParser(
        prog="reprolib", description="Re-run and check the figures and tables of AIM, PrivPGD, "
        "RAP++ and the slicing mechanism.")
    commands = parser.add_subparsers(dest="command", required=True)
    papers = list(catalogue().papers)

    listing = commands.add_parser("list", help="every artifact, its notebook, results and status")
    listing.add_argument("--paper", choices=papers)
    listing.set_defaults(handler=_list)

    run = commands.add_parser("run", help="execute one artifact's notebook into book/generated")
    run.add_argument("artifact", help="artifact id, e.g. prelim-conversions (see `reprolib list`)")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                     metavar=("NAME", "VALUE"), help="notebook parameter (a Python literal or text)")
    run.add_argument("--scale", choices=SCALES, default=DEFAULT_SCALE)
    run.add_argument("--device", choices=DEVICES, default="auto")
    run.set_defaults(handler=_run)

    batch = commands.add_parser("batch", help="execute every notebook (of a paper)")
    batch.add_argument("--paper", choices=papers)
    batch.add_argument("--scale", choices=SCALES, default=DEFAULT_SCALE)
    batch.add_argument("--device", choices=DEVICES, default="auto")
    _add_cluster_options(batch, batch.add_mutually_exclusive_group(), "first")
    batch.add_argument("--dry-run", action="store_true",
                       help="list the cells the batch would compute and estimate their compute "
                            "from recorded timings; run nothing")
    batch.set_defaults(handler=_batch)

    check = commands.add_parser("check", help="evaluate the reproduction checks; exit 1 if one fails")
    check.add_argument("--paper", choices=papers)
    check.set_defaults(handler=_check)

    audit = commands.add_parser("audit", help="recompute a few stored cells of a grid (the "
                                "cheapest of each mechanism) and compare every metric; exit 1 if "
                                "one moved by more than --rtol")
    audit.add_argument("artifact", help="artifact id, e.g. aim-fig1 (see `reprolib list`)")
    audit.add_argument("--scale", choices=SCALES, default=DEFAULT_SCALE)
    audit.add_argument("--cells", type=int, default=2, metavar="N",
                       help="how many stored cells to recompute (default 2)")
    audit.add_argument("--device", choices=DEVICES, default="cpu")
    audit.add_argument("--rtol", type=float, default=1e-6,
                       help="largest relative difference taken as unchanged (default 1e-6)")
    audit.set_defaults(handler=_audit)

    rerun = commands.add_parser("rerun", help="re-run the stored cells of a grid that predate a "
                                "change of code that can move them (the pages' compute lines "
                                "count them), replacing their rows")
    rerun.add_argument("artifact", nargs="?",
                       help="artifact id, e.g. rappp-fig8 (see `reprolib list`)")
    rerun.add_argument("--dry-run", action="store_true",
                       help="list the rows a re-run would replace (of every artifact when none "
                            "is named), with the hours they took; run nothing")
    rerun.add_argument("--change", metavar="COMMIT",
                       help="only the rows that predate this registered change (a commit's "
                            "first characters; default: every change)")
    rerun.add_argument("--scale", choices=SCALES, default=DEFAULT_SCALE)
    rerun.add_argument("--device", choices=DEVICES, default="auto")
    where = rerun.add_mutually_exclusive_group()
    where.add_argument("--cells", type=int, default=None, metavar="N",
                       help="re-run at most N cells here, in the grid's order (default: all)")
    where.add_argument("--spots", action="store_true",
                       help="with --scale small: re-run here only the small cells the "
                            "artifact's regression check recomputes")
    _add_cluster_options(rerun, where, "instead")
    rerun.set_defaults(handler=_rerun)

    prune = commands.add_parser("prune", help="drop stored runs of cells no experiment asks for "
                                "any more (after a hyper-parameter changed)")
    prune.add_argument("--scale", choices=SCALES, required=True)
    prune.set_defaults(handler=_prune)

    merge = commands.add_parser("merge", help="add the runs of results folders computed elsewhere "
                                "(another machine's results/) to this project's stores")
    merge.add_argument("sources", nargs="+", type=Path, metavar="RESULTS_FOLDER")
    merge.add_argument("--replace", action="store_true",
                       help="their runs of cells stored here replace those recorded earlier "
                            "(re-runs, see rerun)")
    merge.set_defaults(handler=_merge)

    doctor = commands.add_parser("doctor", help="what this machine offers: versions, GPUs seen "
                                 "by torch and JAX, the data and results folders")
    doctor.set_defaults(handler=_doctor)

    toc = commands.add_parser("toc", help="write _toc.yml from the papers' specs")
    toc.add_argument("--check", action="store_true", help="only check that _toc.yml is current")
    toc.set_defaults(handler=_toc)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``reprolib`` and ``python -m reprolib``."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (KeyError, ValueError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
