"""A calibration applies only to the hardware it was made on: the core's Scenario.validate
checks it (one place), and every estimate runs that check."""

from __future__ import annotations

import pytest

import libscale


def test_a_calibration_for_other_hardware_is_refused_by_the_core() -> None:
    b300_file = libscale.Plan("qwen3-32b", "b300").calibration  # the B300 default, as a CalibrationFile
    plan = libscale.Plan("qwen3-32b", "h100", calibration=b300_file, gpus=8)
    pattern = (r"calibration: made for hardware 'b300', but the scenario's hardware is 'h100'; .*"
               r"give one made on 'h100', or none for its default calibration")
    with pytest.raises(ValueError, match=pattern):
        plan.scenario.validate()
    with pytest.raises(ValueError, match=pattern):
        plan.step()
    with pytest.raises(ValueError, match=pattern):
        plan.project([8, 16])
    with pytest.raises(ValueError, match=pattern):
        plan.sweep(gpus=[8, 16])
    # The hardware's own calibration passes the same check.
    assert libscale.Plan("qwen3-32b", "h100", gpus=8).step().fields()["step_time_s"] > 0
