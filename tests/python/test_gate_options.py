"""The packing gate's options come from the core's table (gate/gate_options.hpp): listed,
defaulted and checked there, once."""

from __future__ import annotations

import pytest

import libscale
from libscale import options
from libscale._core import gate as _gate
from libscale._core import spec as _spec


def test_gate_is_an_option_group_with_every_gate_config_field() -> None:
    assert "gate" in options.GROUPS
    names = options.names("gate")
    # The table declares each field GateConfig binds, in the struct's order.
    assert names == tuple(_gate.GateConfig._fields)
    assert names[:3] == ("packer", "seq_len", "world_size")
    packer = options.option("gate", "packer")
    assert packer.type == "choice"
    assert packer.choices == tuple(_gate.packer_names())
    assert packer.default == "trl_bfd"
    watchdog = options.option("gate", "watchdog_s")
    assert (watchdog.unit, watchdog.default, watchdog.exclusive_minimum) == ("s", _gate.NCCL_DEFAULT_TIMEOUT_S, True)
    assert options.option("gate", "step_rounding").choices == ("ceil", "floor")
    assert options.defaults("gate")["map_batch_size"] == 1000


def test_make_options_builds_a_checked_gate_config() -> None:
    c = _spec.make_options("gate", {"seq_len": 2048, "world_size": 4, "packer": "nemo_ffd", "step_rounding": "floor"})
    assert isinstance(c, _gate.GateConfig)
    assert (c.seq_len, c.world_size, c.packer, c.step_rounding) == (2048, 4, "nemo_ffd", "floor")
    values = _spec.option_values("gate", c)
    assert values["seq_len"] == 2048 and values["micro_batch"] == 1 and values["packer"] == "nemo_ffd"


@pytest.mark.parametrize(("values", "match"), [
    ({}, r"gate option seq_len = 0; valid:"),  # no default: it must be given
    ({"seq_len": 64, "map_batch_size": -1}, r"gate option map_batch_size = -1; valid:"),
    ({"seq_len": 64, "watchdog_s": 0.0}, r"gate option watchdog_s = 0(\.0)?; valid:"),
    ({"seq_len": 64, "step_rounding": "round"}, r"gate option step_rounding = 'round'; valid: ceil, floor"),
    ({"seq_len": 64, "packer": "bestfit"}, r"gate option packer = 'bestfit'; valid: trl_bfd, "),
])
def test_bad_gate_options_name_option_value_and_range(values: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _spec.make_options("gate", values)


def test_the_gate_validates_through_the_same_table() -> None:
    # The keyword front end reaches the same check (GateConfig's constructor validates).
    with pytest.raises(ValueError, match=r"gate option watchdog_s"):
        libscale.gate([8, 8], world_size=1, seq_len=8, watchdog_s=-1.0)
    with pytest.raises(ValueError, match=r"gate option num_proc = 0"):
        _gate.GateConfig(seq_len=8, num_proc=0)
