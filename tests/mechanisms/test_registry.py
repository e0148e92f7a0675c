"""The registry: how a registration selects a relation, and nested settings from mappings."""

import dataclasses

import pytest

from reprolib.mechanisms import Registration, make_config, registration
from reprolib.privacy import NeighbourRelation

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
