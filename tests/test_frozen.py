"""``frozen_dataclass`` behaves as ``dataclass(frozen=True)``: the same repr, equality, hash,
immutability and keyword-only fields (core/frozen.py)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop.core.frozen import frozen_dataclass


def _pair() -> tuple[type, type]:
    """The same class twice, by ``dataclass(frozen=True)`` and by ``frozen_dataclass``."""

    @dataclass(frozen=True)
    class Point:
        x: float
        y: float
        label: str | None = None
        cache: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    generated = Point

    @frozen_dataclass
    class Point:  # type: ignore[no-redef]
        x: float
        y: float
        label: str | None = None
        cache: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    return generated, Point


GENERATED, SHARED = _pair()


def test_repr_is_the_dataclass_repr() -> None:
    assert repr(SHARED(1.0, 2, "hill")) == repr(GENERATED(1.0, 2, "hill"))
    assert repr(SHARED(1.0, 2, "hill")) == "_pair.<locals>.Point(x=1.0, y=2, label='hill')"


def test_equal_fields_are_equal_and_hash_alike_and_uncompared_fields_are_ignored() -> None:
    a, b = SHARED(1, 2, cache={"a": 1}), SHARED(1, 2, cache={"b": 2})
    assert a == b
    assert hash(a) == hash(b) == hash(GENERATED(1, 2))
    assert SHARED(1, 2) != SHARED(1, 3)


def test_another_class_with_the_same_fields_is_not_equal() -> None:
    assert SHARED(1, 2) != GENERATED(1, 2)
    assert SHARED(1, 2).__eq__(GENERATED(1, 2)) is NotImplemented


def test_fields_cannot_be_assigned_or_deleted() -> None:
    point = SHARED(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.y


def test_keyword_only_fields_and_a_subclass_compare_all_its_fields() -> None:
    @frozen_dataclass(kw_only=True)
    class Entry:
        id: str
        rule: str = ""

    @frozen_dataclass(kw_only=True)
    class Weapon(Entry):
        rof: int

    with pytest.raises(TypeError):
        Weapon("pak-36", "CD 1", 2)  # type: ignore[call-arg]
    gun = Weapon(id="pak-36", rof=2)
    assert repr(gun).endswith("Weapon(id='pak-36', rule='', rof=2)")
    assert gun == Weapon(id="pak-36", rof=2) != Weapon(id="pak-36", rof=3)
    assert gun != Entry(id="pak-36")


def test_methods_a_class_writes_itself_are_kept() -> None:
    @frozen_dataclass
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    assert repr(Named("G-1")) == "<G-1>"
    assert Named("G-1") == Named("g-1")
    assert hash(Named("G-1")) == hash(Named("g-1"))


def test_a_class_of_one_field_and_of_none() -> None:
    @frozen_dataclass
    class One:
        value: int

    @frozen_dataclass
    class Empty:
        pass

    assert One(3) == One(3) and hash(One(3)) == hash((3,))
    assert Empty() == Empty() and hash(Empty()) == hash(())
    assert repr(Empty()).endswith("Empty()")


@given(st.floats(allow_nan=False), st.integers(), st.none() | st.text(max_size=5))
def test_equality_and_hash_agree_with_the_generated_ones(
    x: float, y: int, label: str | None
) -> None:
    ours, theirs = SHARED(x, y, label), GENERATED(x, y, label)
    assert repr(ours) == repr(theirs)
    assert hash(ours) == hash(theirs)
    assert (ours == SHARED(x, y, label)) == (theirs == GENERATED(x, y, label))
    assert (ours == SHARED(x, y + 1, label)) == (theirs == GENERATED(x, y + 1, label))


def test_a_class_that_says_it_is_unhashable_stays_so_as_with_dataclass() -> None:
    @dataclass(frozen=True)
    class Generated:
        value: int
        __hash__ = None  # type: ignore[assignment]

    @frozen_dataclass
    class Shared:
        value: int
        __hash__ = None  # type: ignore[assignment]

    for cls in (Generated, Shared):
        with pytest.raises(TypeError):
            hash(cls(1))
