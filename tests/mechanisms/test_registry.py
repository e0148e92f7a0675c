"""The registry's typed configs: build, make_config and coerce refuse what a config would not take."""

import dataclasses
import enum
from typing import Literal

import pytest

from reprolib.mechanisms import (
    Registration,
    available,
    build,
    config_class,
    make_config,
    registration,
)
from reprolib.mechanisms._registry import coerce
from reprolib.privacy import NeighbourRelation


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Demo:
    rate: float = 0.5
    count: int = 3
    sizes: tuple[int, ...] = (1, 2)
    pair: tuple[str, float] = ("a", 1.0)
    mode: Literal["fast", "slow"] = "fast"
    colour: Colour = Colour.RED
    limit: float | None = None
    weights: dict[str, float] = dataclasses.field(default_factory=dict)


def test_unknown_names_are_refused_with_the_sorted_fields():
    with pytest.raises(TypeError) as error:
        make_config(Demo, {"rates": 1.0, "cuont": 2})
    fields = sorted(f.name for f in dataclasses.fields(Demo))
    assert str(error.value) == f"Demo has no setting(s) ['cuont', 'rates']; its settings are {fields}"
    with pytest.raises(TypeError, match=r"AIM has no setting\(s\) \['pgm_iter'\]"):
        build("AIM", {"pgm_iter": 10})
    with pytest.raises(TypeError, match=r"has no setting\(s\) \['colours'\]"):
        make_config(Demo, {}, fixed={"colours": Colour.BLUE})


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("rate", "0.1", "Demo.rate must be float, got '0.1' (str)"),
    ("rate", True, "Demo.rate must be float, got True"),
    ("count", 2.0, "Demo.count must be int, got 2.0 (float)"),
    ("sizes", 3, "Demo.sizes must be a tuple (or list), got 3"),
    ("sizes", [1, "2"], "Demo.sizes[1] must be int, got '2' (str)"),
    ("pair", ["a"], "Demo.pair must have 2 entries, got ['a']"),
    ("mode", "medium", "Demo.mode must be one of ['fast', 'slow'], got 'medium'"),
    ("colour", "green", "Demo.colour must be Colour, got 'green' (str)"),
    ("limit", "none", "Demo.limit must be float | None, got 'none' (str)"),
    ("weights", {"a": "x"}, "Demo.weights['a'] must be float, got 'x' (str)"),
])
def test_wrong_types_are_refused_naming_the_field_and_the_type(name, value, expected):
    with pytest.raises(TypeError) as error:
        make_config(Demo, {name: value})
    assert str(error.value) == expected


def test_lossless_conversions_are_made():
    config = make_config(Demo, {"rate": 1, "sizes": [4, 5], "pair": ["b", 2], "mode": "slow",
                                "colour": "blue", "limit": 0, "weights": {"x": 1}})
    assert config.rate == 1.0 and type(config.rate) is float
    assert config.sizes == (4, 5) and config.pair == ("b", 2.0) and type(config.pair[1]) is float
    assert config.mode == "slow" and config.colour is Colour.BLUE
    assert config.limit == 0.0 and type(config.limit) is float  # 0 is a value, not "unset"
    assert config.weights == {"x": 1.0}
    assert make_config(Demo, {"limit": None}).limit is None
    assert coerce(int | None, 0, "x") == 0 and coerce(float, 0, "x") == 0.0


def test_a_literal_takes_its_values_only_and_not_equal_values_of_other_types():
    assert coerce(Literal[1, 2], 1, "x") == 1
    with pytest.raises(TypeError, match="must be one of"):
        coerce(Literal[1, 2], True, "x")


def test_base_supplies_what_is_not_overridden():
    base = Demo(rate=0.25, count=7)
    config = make_config(Demo, {"count": 0}, base=base)
    assert (config.rate, config.count) == (0.25, 0)
    with pytest.raises(TypeError, match="base must be a Demo"):
        make_config(Demo, {}, base=object())


def test_build_applies_overrides_fixed_values_and_enums_by_value():
    aim = build("AIM", {"pgm_iters": 7, "max_model_size_mb": 2, "relation": "replace-one"})
    assert aim.config.pgm_iters == 7 and aim.config.max_model_size_mb == 2.0
    assert aim.config.relation is NeighbourRelation.REPLACE_ONE
    mst = build("MST", {}, relation=NeighbourRelation.REPLACE_ONE)
    assert mst.config.relation is NeighbourRelation.REPLACE_ONE and mst.config.pgm_iters == 5000
    assert build("MWEM+PGM", {"rounds": None}).config.rounds is None
    with pytest.raises(TypeError, match="MWEM\\+PGM.rounds must be int \\| None"):
        build("MWEM+PGM", {"rounds": 2.5})
    with pytest.raises(TypeError, match="Gaussian takes no configuration"):
        build("Gaussian", {"pgm_iters": 1})


@pytest.mark.parametrize("name", available())
def test_every_registered_config_can_be_validated(name):
    config = config_class(name)
    if config is None:
        assert build(name).name == name
        return
    # every field's declared type resolves, and the defaults pass their own validation
    defaults = {f.name: getattr(config(), f.name) for f in dataclasses.fields(config) if f.init}
    assert make_config(config, defaults) == config()

ADD_REMOVE, REPLACE_ONE = NeighbourRelation.ADD_REMOVE, NeighbourRelation.REPLACE_ONE


def test_relation_overrides_set_the_named_field_or_nothing():
    assert registration("AIM").relation_overrides(REPLACE_ONE) == {"relation": REPLACE_ONE}
    assert registration("PrivPGD").relation_overrides(REPLACE_ONE) == {}
    with pytest.raises(ValueError, match=r"add-remove.*\['replace-one'\]"):
        registration("PrivPGD").relation_overrides(ADD_REMOVE)


def test_a_registration_must_say_how_it_selects_one_of_several_relations():
    with pytest.raises(ValueError, match="relation_setting"):
        Registration(name="X", module="m", cls="X", config=None,
                     relations=(ADD_REMOVE, REPLACE_ONE))
    with pytest.raises(ValueError, match="once"):
        Registration(name="X", module="m", cls="X", config=None, relations=())


@dataclasses.dataclass(frozen=True)
class _Inner:
    steps: int = 10
    rate: float = 0.1


@dataclasses.dataclass(frozen=True)
class _Outer:
    rounds: int = 1
    inner: _Inner = dataclasses.field(default_factory=_Inner)


def test_nested_settings_come_from_a_mapping_and_are_checked():
    config = make_config(_Outer, {"rounds": 3, "inner": {"steps": 5}})
    assert config == _Outer(rounds=3, inner=_Inner(steps=5, rate=0.1))
    with pytest.raises(TypeError, match=r"Outer.inner has no setting\(s\) \['step'\]"):
        make_config(_Outer, {"inner": {"step": 5}}, owner="Outer")
    with pytest.raises(TypeError, match="Outer.inner.rate must be float"):
        make_config(_Outer, {"inner": {"rate": "fast"}}, owner="Outer")


def test_a_nested_mapping_changes_only_the_settings_it_names():
    # SliceWass' default training has its own loss: a mapping naming the epochs keeps it
    wass = build("SliceWass", {"training": {"epochs": 3}})
    assert (wass.config.training.loss, wass.config.training.epochs) == ("sliced-wasserstein", 3)
    base = _Outer(inner=_Inner(steps=7, rate=0.5))
    assert make_config(_Outer, {"inner": {"rate": 0.2}}, base=base).inner == _Inner(7, 0.2)
