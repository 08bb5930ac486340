"""Leaders (SB Command): command radius, command tests, disruption recovery, pinned and
demoralized recovery, rally, heroic and political leaders, quality modifiers.

The manual's "die roll less than the value" is read through its own example: a B leader
(5) passes 5/6 of the time, so the die is a d6 and the test passes on the value or less.
"A random number between 0 and 1 less than R/(R+D)" is that chance exactly, settled with
percentile dice to a hundredth of a percent (``tabletop.rules.models.chance``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tabletop.core.dice import DiceLike
from tabletop.core.errors import BadInput, RulesRefusal
from tabletop.rules.models.chance import roll_chance, rolls_text, settled, shown
from tabletop.rules.models.squad_battles.results import die, num, show
from tabletop.rules.models.squad_battles.tables import Tables

TEST = "SB Command: Command Test"
RECOVERY = "SB Command: Recovery Test"
RALLY = "SB Command: Rally"
POLITICAL = "SB Command: Political Leaders"
GAS = "SB Firing: Chemical Loads"


def radius(tables: Tables, level: str) -> int:
    """SB Command Radius, by the organization the leader commands."""
    entry = tables.by_table["command"].get(level)
    if entry is None:
        raise BadInput(
            f"--set level={level!r}: not a command level (accepted: "
            f"{', '.join(tables.keys('command'))})"
        )
    return int(entry.radius)


def quality_value(
    tables: Tables, quality: str, *, motivator: bool = False, gas_mask: bool = False
) -> tuple[int, list[str]]:
    """A leader's numeric quality: A+ = 7 (heroic), X rates as C; motivator +1, gas mask -1."""
    q = tables.quality(quality)
    value = q.value
    why = [f"quality {quality} = {value}" + (" (political: rates as C)" if q.political else "")]
    if motivator:
        value += int(tables.param("motivator-bonus"))
        why.append(f"motivator +{show(tables.param('motivator-bonus'))}")
    if gas_mask:
        value -= int(tables.param("gas-mask-penalty"))
        why.append(f"gas mask -{show(tables.param('gas-mask-penalty'))}")
    return value, why


def is_political(tables: Tables, quality: str | None) -> bool:
    return quality is not None and tables.quality(quality).political


def chance(tables: Tables, value: int) -> Fraction:
    """Odds a d6 shows ``value`` or less."""
    sides = die(tables)
    return Fraction(max(0, min(sides, value)), sides)


def pass_along_percent(superior_radius: int, distance: int) -> Fraction:
    """SB Command Test: the +1 reaches the leader with chance R/(R+D), as a percentile."""
    if superior_radius + distance == 0:
        return Fraction(100)
    return Fraction(100 * superior_radius, superior_radius + distance)


def command_test(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    """SB Command Test for one leader, with its superior's test and the +1 it may pass on."""
    sides = die(tables)
    value, why = quality_value(tables, o["quality"], gas_mask=o["gas_mask"])
    lines: list[str] = []
    superior = o["superior"]
    bonus_chance = Fraction(0)
    bonus = False
    superior_chance: Fraction | None = None
    superior_passed: bool | None = None
    if superior != "none":
        if is_political(tables, superior):
            lines.append(f"superior is a political leader: no effect on the test [{POLITICAL}]")
        else:
            s_value, s_why = quality_value(tables, superior)
            superior_chance = chance(tables, s_value)
            r_radius = o["superior_radius"]
            if r_radius is None:
                r_radius = radius(tables, o["superior_level"])
            percent = pass_along_percent(r_radius, o["distance"])
            reach = percent / 100
            superior_passed = o["superior_passed"]
            if superior_passed is None:
                roll = dice.roll(sides, f"superior's command test: passes on {s_value} or less")
                superior_passed = roll <= s_value
                lines.append(
                    f"superior {'; '.join(s_why)}: d{sides} {roll} "
                    + ("passes" if superior_passed else "fails")
                    + f" (chance {superior_chance})"
                )
            else:
                lines.append(f"superior {'passed' if superior_passed else 'failed'} (given)")
                superior_chance = Fraction(int(superior_passed))
            bonus_chance = superior_chance * settled(reach)
            lines.append(
                f"pass-along chance R/(R+D) = {r_radius}/({r_radius}+{o['distance']}) = "
                f"{show(reach)}: {shown(reach)}"
            )
            if superior_passed:
                bonus, rolled = roll_chance(dice, reach, "superior's +1 reaches the leader")
                lines.append(f"{rolls_text(rolled)}: " + ("+1 passed along" if bonus else "no +1"))
    final = value + (1 if bonus else 0)
    roll = dice.roll(sides, f"command test: passes on {final} or less")
    passed = roll <= final
    base_chance = chance(tables, value)
    overall = base_chance + bonus_chance * (chance(tables, value + 1) - base_chance)
    lines.insert(0, f"leader {'; '.join(why)}")
    lines.append(
        f"command test: value {final}: d{sides} {roll} " + ("passes" if passed else "fails")
    )
    return {
        "verdict": f"command test {'passed' if passed else 'failed'}: value {final}, d6 {roll}",
        "value": final,
        "passed": passed,
        "bonus": bonus,
        "chance": num(overall, 4),
        "chance_exact": str(overall),
        "nominal_chance": str(base_chance),
        "superior_chance": str(superior_chance) if superior_chance is not None else None,
        "superior_passed": superior_passed,
        "bonus_chance": str(bonus_chance),
        "lines": lines,
        "rule": TEST,
    }


def recovery_limit(
    tables: Tables, quality: str | None, passed: bool, distance: int
) -> tuple[int, str]:
    """SB Recovery Test: undisrupts on a die of 1 + Q/(1+D) or less (Q halved, fractions
    dropped, when the leader failed his command test); on a 1 without a leader. A political
    leader cannot undisrupt units, so the unit tests as though it had none."""
    if quality is None or is_political(tables, quality):
        face = int(tables.param("recovery-no-leader-face"))
        why = "no leader" if quality is None else "political leader: cannot undisrupt"
        return face, f"{why}: recovers on {face}"
    q, _ = quality_value(tables, quality)
    shown = str(q)
    if not passed:
        q //= 2
        shown = f"{shown} halved (failed command test) = {q}"
    limit = 1 + q // (1 + distance)
    return limit, f"1 + Q/(1+D) = 1 + {q}/(1+{distance}) = {limit} (Q {shown})"


def recovery(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    sides = die(tables)
    lines: list[str] = []
    if o["gas"] == "unmasked":
        return _blocked("a unit without gas masks in a gas hex cannot recover from disruption")
    quality = None if o["quality"] == "none" else o["quality"]
    passed = o["leader_passed"]
    if quality is not None and not is_political(tables, quality) and passed is None:
        value, _ = quality_value(tables, quality, gas_mask=o["gas_mask"])
        roll = dice.roll(sides, f"leader's command test: passes on {value} or less")
        passed = roll <= value
        lines.append(f"leader's command test: d{sides} {roll} " + ("passes" if passed else "fails"))
    limit, why = recovery_limit(tables, quality, bool(passed), o["distance"])
    roll = dice.roll(sides, f"recovery test: undisrupts on {limit} or less")
    recovered = roll <= limit
    lines.append(f"{why}: d{sides} {roll} " + ("recovers" if recovered else "stays disrupted"))
    return {
        "verdict": ("undisrupted" if recovered else "still disrupted")
        + f" (needs {limit} or less)",
        "limit": limit,
        "recovered": recovered,
        "chance": str(chance(tables, limit)),
        "state": "normal" if recovered else "disrupted",
        "lines": lines,
        "rule": RECOVERY,
    }


def _blocked(why: str) -> dict[str, Any]:
    return {
        "verdict": f"no recovery: {why}",
        "recovered": False,
        "chance": "0",
        "lines": [f"{why} [{GAS}]"],
        "rule": GAS,
    }


def pinned_recovery(o: dict[str, Any]) -> dict[str, Any]:
    """SB Pinned Recovery: a whole turn without being fired upon unpins, into disruption."""
    if o["fired_upon"]:
        return {
            "verdict": "still pinned: it was fired upon during the turn",
            "recovered": False,
            "state": "pinned",
            "lines": ["fired upon this turn: no automatic recovery"],
            "rule": "SB Command: Pinned Recovery",
        }
    return {
        "verdict": "unpinned at the start of its turn: now disrupted",
        "recovered": True,
        "state": "disrupted",
        "lines": ["not fired upon for a whole turn: unpinned, and disrupted"],
        "rule": "SB Command: Pinned Recovery",
    }


def demoralized_recovery(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    """SB Demoralized Recovery: not fired upon for a turn, a die of 1 recovers into disruption."""
    rule = "SB Command: Demoralized Recovery"
    if o["gas"] in ("masked", "unmasked"):
        return _blocked("infantry in gas (masked or not) cannot recover from demoralization")
    if o["fired_upon"]:
        return {
            "verdict": "still demoralized: it was fired upon during the turn",
            "recovered": False,
            "state": "demoralized",
            "chance": "0",
            "lines": ["fired upon this turn: no automatic recovery"],
            "rule": rule,
        }
    sides = die(tables)
    face = int(tables.param("demoralized-recovery-face"))
    roll = dice.roll(sides, f"demoralized recovery on {face}")
    recovered = roll == face
    return {
        "verdict": "recovers into disruption" if recovered else "still demoralized",
        "recovered": recovered,
        "state": "disrupted" if recovered else "demoralized",
        "chance": str(Fraction(1, sides)),
        "lines": [f"d{sides} {roll}: " + ("recovers" if recovered else f"needs {face}")],
        "rule": rule,
    }


def rally(tables: Tables, o: dict[str, Any], dice: DiceLike) -> dict[str, Any]:
    """SB Rally: the leader's own units rally on his quality or less, others on a 1; rallied
    units are disrupted. Political leaders cannot rally the demoralized and demoralize the
    pinned when they fail."""
    sides = die(tables)
    political = is_political(tables, o["quality"])
    if o["gas"] == "unmasked":
        raise RulesRefusal(f"a leader without a gas mask in a gas hex cannot rally ({GAS})")
    if political and o["state"] == "demoralized":
        raise RulesRefusal(f"a political leader cannot rally demoralized units ({POLITICAL})")
    value, why = quality_value(
        tables, o["quality"], motivator=o["motivator"], gas_mask=o["gas_mask"]
    )
    if o["under_command"]:
        limit, how = value, f"under his command: {'; '.join(why)}"
    else:
        limit = int(tables.param("rally-other-face"))
        how = "not under his command: rallies on 1"
    roll = dice.roll(sides, f"rally: {limit} or less")
    rallied = roll <= limit
    state = "disrupted" if rallied else o["state"]
    if not rallied and political and o["state"] == "pinned":
        state = "demoralized"
    lines = [f"{how}: d{sides} {roll} " + ("rallies, disrupted" if rallied else "fails")]
    if state == "demoralized" and o["state"] == "pinned":
        lines.append(f"a political leader's failed rally demoralizes [{POLITICAL}]")
    return {
        "verdict": ("rallied: now disrupted" if rallied else f"not rallied: {state}"),
        "rallied": rallied,
        "state": state,
        "limit": limit,
        "chance": str(chance(tables, limit)),
        "lines": lines,
        "rule": RALLY,
    }
