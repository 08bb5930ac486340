"""``frozen_dataclass`` behaves as ``dataclass(frozen=True)``: the same repr, equality, hash,
immutability and keyword-only fields (core/frozen.py)."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop.core import frozen
from tabletop.core.frozen import frozen_dataclass, mutable_dataclass


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


def _made_alike() -> tuple[type, type]:
    """One class of every kind of field, by ``dataclass(frozen=True)`` and by us."""
    calls: list[str] = []

    def shapes() -> type:
        class Base:
            id: str
            rule: str = "CD 1"
            tags: list[str] = field(default_factory=list)
            count: int = field(default=0, init=False)
            made: list[int] = field(default_factory=lambda: [1], init=False)
            seen: int = field(default=7, kw_only=True)

            def __post_init__(self) -> None:
                calls.append(self.id)

        return Base

    return dataclass(frozen=True)(shapes()), frozen_dataclass(shapes())


def test_init_signature_doc_defaults_and_post_init_are_the_dataclass_ones() -> None:
    generated, ours = _made_alike()
    assert inspect.signature(ours) == inspect.signature(generated)
    assert str(inspect.signature(ours)) == (
        "(id: 'str', rule: 'str' = 'CD 1', tags: 'list[str]' = <factory>, *, seen: 'int' = 7)"
        " -> None"
    )
    assert ours.__doc__ == generated.__doc__
    a, b = ours("x"), ours("y", "CD 2", ["t"], seen=1)
    assert (a.rule, a.tags, a.count, a.made, a.seen) == ("CD 1", [], 0, [1], 7)
    assert (b.rule, b.tags, b.seen) == ("CD 2", ["t"], 1)
    assert a.tags is not ours("z").tags  # a factory's value is made for each
    assert repr(a).endswith(repr(generated("x")).split(".")[-1])


def test_wrong_arguments_are_refused_as_by_dataclass() -> None:
    generated, ours = _made_alike()
    for bad in ((), ("x", "r", [], 3)):
        messages = []
        for cls in (ours, generated):
            with pytest.raises(TypeError) as refused:
                cls(*bad)
            messages.append(str(refused.value).split("__init__() ")[-1])
        assert messages[0] == messages[1]
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @frozen_dataclass
        class Wrong:
            a: int = 1
            b: int


def test_a_plain_subclass_may_add_attributes_but_not_assign_fields() -> None:
    _, ours = _made_alike()

    class Plain(ours):  # type: ignore[misc, valid-type]
        pass

    item = Plain("x")
    item.note = "free"  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'rule'"):
        item.rule = "CD 2"
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'note'"):
        ours("y").note = "not on the class itself"  # type: ignore[attr-defined]


def test_every_frozen_class_of_the_program_has_the_dataclass_signature() -> None:
    """Over the whole package: each class's ``__init__`` signature is the one
    ``dataclass(frozen=True)`` gives a class of the same fields."""
    import importlib
    import pkgutil
    import sys

    import tabletop

    for info in pkgutil.walk_packages(tabletop.__path__, "tabletop."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    checked = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("tabletop"):
            continue
        for cls in vars(module).values():
            if not (
                isinstance(cls, type)
                and cls.__module__ == name
                and "__setattr__" in cls.__dict__
                and getattr(cls, "__dataclass_params__", None) is not None
                and not cls.__dataclass_params__.init
            ):
                continue
            twin = dataclasses.make_dataclass(
                cls.__name__,
                [
                    (
                        f.name,
                        f.type,
                        dataclasses.field(
                            default=f.default,
                            default_factory=f.default_factory,
                            init=f.init,
                            kw_only=f.kw_only,
                        ),
                    )
                    for f in dataclasses.fields(cls)
                ],
                frozen=True,
            )
            assert str(inspect.signature(cls)) == str(inspect.signature(twin)), cls
            checked += 1
    assert checked > 150


def _as_a_new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the code this process read or compiled, as the next command would start."""
    monkeypatch.setattr(frozen, "_kept", {})
    monkeypatch.setattr(frozen, "_used", {})


def test_compiled_code_is_kept_and_a_damaged_copy_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path))
    _as_a_new_process(monkeypatch)
    generated, _ = _made_alike()
    kept = sorted(tmp_path.glob("code-*/*.marshal"))
    assert [k.name for k in kept] == [f"{__name__}.marshal"]  # one file for this module
    kept[0].write_bytes(b"not marshal data")
    _as_a_new_process(monkeypatch)
    _, again = _made_alike()
    assert again("x").tags == [] and kept[0].read_bytes() != b"not marshal data"
    _as_a_new_process(monkeypatch)
    compiled = []
    monkeypatch.setattr(frozen, "compile", lambda *a, **k: compiled.append(a), raising=False)
    _, loaded = _made_alike()  # from the kept copy, nothing compiled
    assert inspect.signature(loaded) == inspect.signature(generated) and compiled == []


def test_a_module_file_keeps_the_texts_of_all_its_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path))
    _as_a_new_process(monkeypatch)
    _made_alike()

    @frozen_dataclass
    class Other:
        name: str

    assert len(list(tmp_path.glob("code-*/*.marshal"))) == 1  # both in this module's file
    _as_a_new_process(monkeypatch)
    assert sorted(len(t.splitlines()) for t in frozen._read_kept(__name__)) == [2, 7]


def test_a_cache_that_cannot_be_written_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    monkeypatch.setenv("TABLETOP_CACHE", str(blocked))
    generated, ours = _made_alike()
    assert inspect.signature(ours) == inspect.signature(generated)
    assert ours("x") == ours("x")


def test_a_mutable_dataclass_behaves_as_a_plain_dataclass() -> None:
    def shapes() -> type:
        class Look:
            range: float
            notes: list[str] = field(default_factory=list)
            clear: bool = field(default=True, compare=False)

        return Look

    generated, ours = dataclass(shapes()), mutable_dataclass(shapes())
    assert inspect.signature(ours) == inspect.signature(generated)
    assert ours.__doc__ == generated.__doc__
    look = ours(3.5)
    look.range = 4.0  # fields may change
    look.notes.append("dusk")
    assert repr(look) == repr(generated(4.0, ["dusk"]))
    assert look == ours(4.0, ["dusk"], clear=False) != ours(4.5)
    assert ours.__hash__ is None and generated.__hash__ is None
    with pytest.raises(TypeError):
        hash(look)


def test_an_initvar_is_refused_rather_than_left_out_of_init() -> None:
    with pytest.raises(TypeError, match="an InitVar needs dataclass's own __init__"):

        @mutable_dataclass
        class Seeded:
            seed: dataclasses.InitVar[int]
            value: int = 0


def test_an_undocumented_class_reads_the_docstring_dataclass_gives_it() -> None:
    def shapes() -> type:
        class Mark:
            kind: str
            inches: float = 2.0

        return Mark

    generated, ours = dataclass(frozen=True)(shapes()), frozen_dataclass(shapes())
    assert ours("smoke").__doc__ == generated.__doc__ == "Mark(kind: 'str', inches: 'float' = 2.0)"
    assert ours.__doc__ == generated.__doc__  # made when first read, then kept
    assert vars(ours)["__doc__"] == generated.__doc__
