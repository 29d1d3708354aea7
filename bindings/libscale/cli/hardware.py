"""``libscale hardware [NAME]``: the shipped hardware profiles, or one with its calibration."""

from __future__ import annotations

import argparse
from typing import Any

from .. import _core, _format, catalog
from ..results import struct_to_dict
from ._common import add_format, emit_table

COLUMNS = [
    _format.Column("name", "name", _format.text, "<"),
    _format.Column("peak_bf16_tflops", "bf16 dense TFLOP/s", _format.fixed(1)),
    _format.Column("peak_fp8_tflops", "fp8 dense TFLOP/s", _format.fixed(1)),
    _format.Column("sm_count", "SMs", _format.integer),
    _format.Column("hbm_gib", "HBM GiB", _format.fixed(1)),
    _format.Column("hbm_tbps", "HBM TB/s", _format.fixed(2)),
    _format.Column("nvlink_gbps_bidir", "NVLink GB/s (bidir)", _format.fixed(0)),
    _format.Column("nic_gbps_per_gpu", "NIC Gb/s per GPU", _format.fixed(0)),
    _format.Column("gpus_per_node", "GPUs/node", _format.integer),
    _format.Column("board_power_w", "board W", _format.fixed(0)),
    _format.Column("idle_power_w", "idle W", _format.fixed(0)),
    _format.Column("price_per_gpu_hour_usd", "$/GPU-h (assumed)", _format.fixed(2)),
    _format.Column("display_name", "description", _format.text, "<"),
]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("hardware", help="the shipped hardware profiles",
                       description="List the shipped hardware, or show one profile and its default calibration.")
    p.add_argument("name", nargs="?", default=None, help="a catalog name or a hardware JSON file")
    add_format(p)
    p.set_defaults(run=run)


def _calibration_text(cal: Any) -> str:
    lines = [f"calibration: {_format.calibration_kind(cal.kind)}, from {cal.source}"]
    table = _core.calibrate.calibration_coefficients()
    width = max(len(c["name"]) for c in table)
    for c in table:
        value = _core.calibrate.get_parameter(cal, c["name"])
        lines.append(f"  {c['name']:<{width}}  {value:>12.4g} {c['unit']:<9} {c['help']}")
    return "\n".join(lines)


def run(a: argparse.Namespace) -> int:
    if a.name is None:
        rows = [struct_to_dict(_core.io.find_hardware(n)) for n in _core.io.hardware_names()]
        emit_table(a.output_format, {"schema": "libscale.hardware_list/1", "hardware": rows}, COLUMNS, rows)
        return 0
    hw = catalog.hardware(a.name)
    cal = _core.calibrate.default_calibration(hw)
    row = struct_to_dict(hw)
    document = {"schema": "libscale.hardware_list/1", "hardware": row, "calibration": struct_to_dict(cal)}
    emit_table(a.output_format, document, COLUMNS, [row],
               text=lambda: f"{_format.text_table(COLUMNS, [row])}\n\n{_calibration_text(cal)}")
    return 0
