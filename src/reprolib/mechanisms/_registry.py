"""The registry of mechanisms: name -> family, class and typed config, imported lazily.

Registering a mechanism here is what makes it reachable by name (``get``, ``build``), listed by
``available()``, and covered by the contract suite (tests/mechanisms/test_contract.py). Nothing is
imported until asked for, so ``import reprolib.mechanisms`` loads neither torch nor JAX.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import types
import typing
from collections.abc import Mapping
from typing import Any

from reprolib.privacy import NeighbourRelation


@dataclasses.dataclass(frozen=True, kw_only=True)
class Registration:
    """Where a mechanism lives.

    Attributes:
        name: the mechanism's name (its ``name`` attribute, as in the papers' figures).
        module: the module that defines it.
        cls: its class name in that module.
        config: its frozen config class name in that module (None: it takes no config).
        relations: the neighbouring relations it can account under, the default first.
        relation_setting: the config field that selects the relation; None when the class fixes
            it (then ``relations`` has exactly one entry).
        quick: config overrides for a run of a second or so on a toy dataset (the contract
            suite's and the examples' setting; never a paper's).
    """

    name: str
    module: str
    cls: str
    config: str | None
    relations: tuple[NeighbourRelation, ...]
    relation_setting: str | None = None
    quick: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.relations or len(set(self.relations)) != len(self.relations):
            raise ValueError(f"{self.name}: relations must list each accepted relation once, "
                             f"got {self.relations}")
        if self.relation_setting is None and len(self.relations) != 1:
            raise ValueError(f"{self.name} accepts {len(self.relations)} relations: name the "
                             "config field that selects one in relation_setting")

    def relation_overrides(self, relation: NeighbourRelation) -> dict[str, Any]:
        """The config overrides that make the mechanism account under ``relation``.

        Raises:
            ValueError: if the mechanism cannot account under ``relation``; the message lists the
                relations it accepts.
        """
        if relation not in self.relations:
            raise ValueError(f"{self.name} cannot account under the {relation.value} relation; "
                             f"it accepts {[r.value for r in self.relations]}")
        return {} if self.relation_setting is None else {self.relation_setting: relation}

    @property
    def family(self) -> str:
        """The family subpackage (``pgm``, ``marginal``, ``relaxed``, ``particles``, ...)."""
        return self.module.split(".")[2]


_M = "reprolib.mechanisms"
_ADD_REMOVE, _REPLACE_ONE = NeighbourRelation.ADD_REMOVE, NeighbourRelation.REPLACE_ONE
REGISTRATIONS: tuple[Registration, ...] = (
    Registration(name="AIM", module=f"{_M}.marginal.aim", cls="AIM", config="AIMConfig",
                 relations=(_ADD_REMOVE, _REPLACE_ONE), relation_setting="relation",
                 quick={"pgm_iters": 20, "final_pgm_iters": 20, "max_model_size_mb": 1.0}),
    Registration(name="MST", module=f"{_M}.marginal.mst", cls="MST", config="MSTConfig",
                 relations=(_ADD_REMOVE, _REPLACE_ONE), relation_setting="relation",
                 quick={"pgm_iters": 20, "selection_pgm_iters": 20}),
    Registration(name="MWEM+PGM", module=f"{_M}.marginal.mwem_pgm", cls="MWEMPGM",
                 config="MWEMPGMConfig", relations=(_ADD_REMOVE, _REPLACE_ONE),
                 relation_setting="relation",
                 quick={"rounds": 3, "pgm_iters": 20}),
    Registration(name="Independent", module=f"{_M}.marginal.independent", cls="Independent",
                 config="IndependentConfig", relations=(_ADD_REMOVE,), quick={"pgm_iters": 20}),
    Registration(name="Gaussian", module=f"{_M}.marginal.gaussian", cls="GaussianWorkload",
                 config=None, relations=(_ADD_REMOVE,)),
    Registration(name="PrivBayes+PGM", module=f"{_M}.marginal.privbayes_pgm", cls="PrivBayesPGM",
                 config="PrivBayesPGMConfig", relations=(_ADD_REMOVE,), quick={"iters": 20}),
    Registration(name="PrivMRF", module=f"{_M}.marginal.privmrf", cls="PrivMRF",
                 config="PrivMRFConfig", relations=(_ADD_REMOVE,), quick={"pgm_iters": 20}),
    Registration(name="MWEM+RP", module=f"{_M}.relaxed.mwem_rp", cls="MWEMRelaxedProjection",
                 config="MWEMRPConfig", relations=(_ADD_REMOVE,),
                 quick={"rounds": 3, "projection": {"n_synthetic": 200, "iterations": 100}}),
    Registration(name="GEM", module=f"{_M}.relaxed.gem", cls="GEM", config="GEMConfig",
                 relations=(_REPLACE_ONE,),
                 quick={"rounds": 3, "rows": 50, "code_dim": 8, "hidden": (16, 16),
                        "iterations": 20}),
    Registration(name="RAP-queries", module=f"{_M}.relaxed.rap_queries", cls="RAPQueries",
                 config="RAPQueriesConfig", relations=(_REPLACE_ONE,),
                 quick={"rounds": 3, "top_q": 5, "n_synthetic": 50, "iterations": 30}),
    Registration(name="RAP++", module=f"{_M}.relaxed.rappp", cls="RAPPP", config="RAPPPConfig",
                 relations=(_REPLACE_ONE,),
                 quick={"n_synthetic": 50, "lt_rounds": 2, "lt_per_round": 3, "cm_rounds": 2,
                        "lt_queries": 200, "max_steps": 30, "lt_passes": 2}),
    Registration(name="RAP", module=f"{_M}.relaxed.rappp", cls="RAP", config="RAPConfig",
                 relations=(_REPLACE_ONE,),
                 quick={"n_synthetic": 50, "bins": 5, "rounds": 3, "max_steps": 30}),
    Registration(name="Slicing", module=f"{_M}.slicing.mechanism", cls="SlicingMechanism",
                 config="SlicingConfig", relations=(_REPLACE_ONE,),
                 quick={"slices": 10, "latent": 8, "hidden": (16,), "device": "cpu",
                        "training": {"epochs": 1, "batch_size": 64, "learning_rate": 1e-3}}),
    Registration(name="SliceWass", module=f"{_M}.slicing.mechanism", cls="SliceWass",
                 config="SliceWassConfig", relations=(_REPLACE_ONE,),
                 quick={"slices": 20, "latent": 8, "hidden": (16,), "device": "cpu",
                        "training": {"epochs": 1, "batch_size": 64, "learning_rate": 1e-3,
                                     "loss": "sliced-wasserstein"}}),
    Registration(name="DP-MERF", module=f"{_M}.deep.dp_merf", cls="DPMERF",
                 config="DPMERFConfig", relations=(_REPLACE_ONE,),
                 quick={"features": 200, "hidden": (16, 16), "epochs": 2, "batch_size": 100,
                        "device": "cpu"}),
    Registration(name="DP-CTGAN", module=f"{_M}.deep.dp_ctgan", cls="DPCTGAN",
                 config="DPCTGANConfig", relations=(_REPLACE_ONE,),
                 quick={"latent": 8, "generator": (16,), "discriminator": (16,),
                        "batch_size": 100, "epochs": 2, "noise_multiplier": None,
                        "device": "cpu"}),
    Registration(name="PATE-GAN", module=f"{_M}.deep.pate_gan", cls="PATEGAN",
                 config="PATEGANConfig", relations=(_REPLACE_ONE,),
                 quick={"latent": 8, "batch_size": 16, "teacher_iters": 1, "student_iters": 2,
                        "teachers": 3, "inverse_scale": None, "iterations": 2, "device": "cpu"}),
    Registration(name="Private-GSD", module=f"{_M}.genetic.private_gsd", cls="PrivateGSD",
                 config="PrivateGSDConfig", relations=(_REPLACE_ONE,),
                 quick={"records": 50, "generations": 300, "mutations": 5, "crossovers": 5}),
    Registration(name="PrivPGD", module=f"{_M}.particles.privpgd", cls="PrivPGD",
                 config="PrivPGDConfig", relations=(_REPLACE_ONE,),
                 quick={"n_particles": 200, "epochs": 3, "projection_iterations": 5,
                        "device": "cpu"}),
)
_BY_NAME = {r.name: r for r in REGISTRATIONS}


def available() -> tuple[str, ...]:
    """The names of every registered mechanism."""
    return tuple(_BY_NAME)


def registration(name: str) -> Registration:
    """The registration of ``name``; an unknown name raises a KeyError listing the known ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown mechanism {name!r}; registered: {', '.join(_BY_NAME)}") from None


def get(name: str) -> type:
    """The class of the mechanism called ``name`` (imports its module)."""
    entry = registration(name)
    return getattr(importlib.import_module(entry.module), entry.cls)


def config_class(name: str) -> type | None:
    """The frozen config dataclass of ``name``, or None if it takes no config."""
    entry = registration(name)
    return None if entry.config is None else getattr(importlib.import_module(entry.module),
                                                     entry.config)


def build(name: str, overrides: Mapping[str, Any] | None = None, **fixed: Any) -> Any:
    """An instance of ``name`` whose config is the paper's defaults with ``overrides`` applied.

    ``overrides`` come from users (a notebook's ``-p``, a cell's parameters) and are validated by
    :func:`make_config`; ``fixed`` are set by code (e.g. a constraint object) and only checked for
    unknown names.
    """
    cls, config = get(name), config_class(name)
    values = dict(overrides or {})
    if config is None:
        if values or fixed:
            raise TypeError(f"{name} takes no configuration, got {sorted({**values, **fixed})}")
        return cls()
    return cls(make_config(config, values, fixed=fixed, owner=name))


def make_config(config: type[Any], overrides: Mapping[str, Any], *, base: Any = None,
                fixed: Mapping[str, Any] | None = None, owner: str | None = None) -> Any:
    """A ``config`` instance: ``base`` (default: the class's defaults) with ``overrides`` and
    ``fixed`` applied, after checking that every name is a field and every override has the
    field's type (see :func:`coerce`).

    Args:
        config: a dataclass (frozen by convention).
        overrides: user values, validated and coerced.
        base: an instance of ``config`` that supplies the values not overridden (e.g. a scale's
            profile); None: the class's own defaults.
        fixed: values set by code, checked only for unknown names.
        owner: the name errors use (default: the class name).

    Raises:
        TypeError: an unknown name (the message lists the valid fields, sorted) or a value of the
            wrong type (the message names the field and the expected type).
    """
    fixed = fixed or {}
    fields = {f.name for f in dataclasses.fields(config) if f.init}
    who = owner or config.__name__
    unknown = sorted(set(overrides) - fields) + sorted(set(fixed) - fields)
    if unknown:
        raise TypeError(f"{who} has no setting(s) {unknown}; its settings are {sorted(fields)}")
    if base is not None and not isinstance(base, config):
        raise TypeError(f"base must be a {config.__name__}, got {type(base).__name__}")
    hints = typing.get_type_hints(config)
    values = {}
    for name, value in overrides.items():
        if isinstance(value, Mapping) and dataclasses.is_dataclass(hints[name]):
            # a nested config changes only the settings named: the rest keep the outer default
            inner = getattr(base if base is not None else config(**fixed), name)
            values[name] = make_config(hints[name], value, base=inner, owner=f"{who}.{name}")
        else:
            values[name] = coerce(hints[name], value, f"{who}.{name}")
    if base is None:
        return config(**values, **fixed)
    return dataclasses.replace(base, **values, **fixed)


def coerce(hint: Any, value: Any, where: str) -> Any:
    """``value`` as type ``hint`` where that loses nothing: int -> float (never bool), list ->
    tuple, a mapping's keys and values coerced, a mapping of settings -> a nested config
    dataclass, the value of an enum member -> the member; otherwise a TypeError naming ``where``
    and the expected type.
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        for option in args:
            try:
                return coerce(option, value, where)
            except TypeError:
                continue
        raise TypeError(f"{where} must be {_words(hint)}, got {value!r} ({type(value).__name__})")
    if hint is type(None):
        if value is None:
            return None
        raise TypeError(f"{where} must be None, got {value!r}")
    if origin is typing.Literal:
        if any(value == a and type(value) is type(a) for a in args):
            return value
        raise TypeError(f"{where} must be one of {list(args)}, got {value!r}")
    if origin is tuple:
        return _coerce_tuple(args, value, where)
    if origin in (dict, Mapping):
        if not isinstance(value, Mapping):
            raise TypeError(f"{where} must be {_words(hint)}, got {value!r}")
        key_hint, value_hint = args or (Any, Any)
        return {coerce(key_hint, k, f"{where} key"): coerce(value_hint, v, f"{where}[{k!r}]")
                for k, v in value.items()}
    target = origin or hint
    if isinstance(target, type):
        if target is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, bool) and target in (int, float):
            raise TypeError(f"{where} must be {target.__name__}, got {value!r}")
        if isinstance(value, target):
            return value
        if dataclasses.is_dataclass(target) and isinstance(value, Mapping):
            return make_config(target, value, owner=where)
        if issubclass(target, enum.Enum):
            try:
                return target(value)
            except ValueError:
                pass
        raise TypeError(f"{where} must be {_words(hint)}, got {value!r} "
                        f"({type(value).__name__})")
    return value


def _coerce_tuple(args: tuple[Any, ...], value: Any, where: str) -> tuple[Any, ...]:
    """``value`` (a list or tuple) as ``tuple[args]``: ``(T, ...)`` any length, else exactly."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{where} must be a tuple (or list), got {value!r}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(coerce(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
    if not args:
        return tuple(value)
    if len(args) != len(value):
        raise TypeError(f"{where} must have {len(args)} entries, got {value!r}")
    return tuple(coerce(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value,
                                                                            strict=True)))


def _words(hint: Any) -> str:
    """A type as a user reads it: ``float``, ``tuple[float, ...]``, ``int | None``."""
    if typing.get_origin(hint) is None and isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "")
