"""project / solve_deadline / solve_budget: rows cross-checked against estimate_step and
against the job arithmetic done here."""

from __future__ import annotations

import math

import pytest

import libscale
from libscale.results import row_to_dict

CONFIG = dict(gpus_per_node=8, seq_len=8192, micro_batch=1, global_batch_tokens=1_048_576,
              activation_checkpointing="full")


@pytest.fixture(scope="module")
def projection() -> libscale.Projection:
    return libscale.project("qwen3-32b", "b300", gpus=[16, 4, 8], tokens=1e9, **CONFIG)


def test_rows_are_ascending_and_equal_estimate_step(projection):
    assert [r.step.gpus for r in projection.rows] == [4, 8, 16]
    for r in projection.rows:
        s = libscale.estimate_step("qwen3-32b", "b300", gpus=r.step.gpus, **CONFIG)
        assert r.step.step_time_s == s.step_time_s
        assert r.step.memory.total_gib == s.memory.total_gib
        assert r.step.grad_accum == 1_048_576 // (r.step.gpus * 8192)


def test_job_arithmetic(projection, b300):
    tokens = 1e9
    first = projection.rows[0]
    for r in projection.rows:
        assert r.steps == math.ceil(tokens / 1_048_576)  # whole steps: 953.67 -> 954
        wall_h = r.steps * r.step.step_time_s / 3600
        assert r.wall_time_h == pytest.approx(wall_h)
        assert r.gpu_hours == pytest.approx(r.step.gpus * wall_h)
        assert r.cost_usd == pytest.approx(r.gpu_hours * b300.price_per_gpu_hour_usd)
        assert r.energy_kwh == pytest.approx(r.step.energy_per_step_j * r.steps / 3.6e6)
        assert r.speedup == pytest.approx(r.step.tokens_per_s / first.step.tokens_per_s)
        assert r.scaling_efficiency == pytest.approx(r.speedup * first.step.gpus / r.step.gpus)
    assert projection.price_per_gpu_hour_usd == b300.price_per_gpu_hour_usd
    assert projection.job.price_per_gpu_hour_usd is None


def test_comm_exposed_from_is_the_first_row_whose_comm_does_not_hide(projection):
    exposed = [r.step.gpus for r in projection.rows if not r.step.comm_hidden]
    assert projection.comm_exposed_from_gpus == (exposed[0] if exposed else None)
    # a count whose communication hides exposes only the first gather and last reduction,
    # so its exposed time is a small part of the step
    for r in projection.rows:
        if r.step.comm_hidden:
            assert r.step.exposed_comm_s < 0.05 * r.step.step_time_s
    # with tiny micro-batches compute per layer is too short to hide the all-gathers
    small = libscale.project("qwen3-8b", "b300", gpus=[8, 16], seq_len=256, global_batch_tokens=16384)
    assert small.comm_exposed_from_gpus == 8
    assert not small.rows[0].step.comm_hidden


def test_price_epochs_and_scaling_options():
    p = libscale.project("qwen3-32b", "b300", gpus=[8, 16], price_per_gpu_hour_usd=2.5, epochs=3, tokens=2e8, **CONFIG)
    for r in p.rows:
        assert r.cost_usd == pytest.approx(r.gpu_hours * 2.5)
        assert r.wall_time_h == pytest.approx(math.ceil(3 * 2e8 / r.step.tokens_per_step) * r.step.step_time_s / 3600)
    weak = libscale.project("qwen3-32b", "b300", gpus=[8, 16], scaling="weak", seq_len=8192, micro_batch=1,
                            global_batch_tokens=8 * 8192 * 4)
    assert weak.scaling == "weak"
    assert [r.step.grad_accum for r in weak.rows] == [4, 4]
    assert weak.rows[1].step.tokens_per_step == 2 * weak.rows[0].step.tokens_per_step


def test_single_gpu_count_and_bad_counts():
    assert [r.step.gpus for r in libscale.project("qwen3-32b", "b300", gpus=8).rows] == [8]
    with pytest.raises(ValueError, match="positive"):
        libscale.project("qwen3-32b", "b300", gpus=[4, -8])
    with pytest.raises(ValueError, match="empty"):
        libscale.project("qwen3-32b", "b300", gpus=[])
    with pytest.raises(TypeError):
        libscale.project("qwen3-32b", "b300", gpus=["4"])
    with pytest.raises(ValueError, match="tokens"):
        libscale.project("qwen3-32b", "b300", tokens=0)


def _status(mem) -> str:
    """memory_model.cpp's verdict: fits even with the margin added, does not fit even with
    it taken off, uncertain in between."""
    if mem.total_gib * (1 + mem.margin) <= mem.available_gib:
        return "fits"
    return "uncertain" if mem.total_gib * (1 - mem.margin) <= mem.available_gib else "does_not_fit"


def test_counts_that_do_not_fit_are_projected_and_flagged():
    # Qwen3-32B on 80 GiB H100s: 4 GPUs cannot hold the sharded AdamW state, 16 can.
    p = libscale.project("qwen3-32b", "h100", gpus=[4, 8, 16], global_batch_tokens=1_048_576)
    assert [r.step.gpus for r in p.rows] == [4, 8, 16]
    for r in p.rows:
        mem = r.step.memory
        assert r.fit_status == mem.status == _status(mem)
        assert r.fits == mem.fits == (mem.status == "fits")  # uncertain is not fitting
        assert (r.needed_gib, r.available_gib) == (mem.total_gib, mem.available_gib) and r.available_gib == 80
        assert (r.fit_suggestion == "") == (mem.status == "fits")
        assert r.step.step_time_s > 0                         # timed all the same
        d = row_to_dict(r)
        assert (d["fits"], d["fit_status"], d["needed_gib"], d["available_gib"], d["fit_suggestion"]) == \
            (r.fits, r.fit_status, r.needed_gib, r.available_gib, r.fit_suggestion)
    first = p.rows[0]
    assert first.fit_status == "does_not_fit" and "to fit, try" in first.fit_suggestion
    assert p.rows[-1].fit_status == "fits"
    # the suggestion is the core's, for the configuration at that count
    cfg = libscale.training_config(gpus=4, global_batch_tokens=1_048_576)
    assert first.fit_suggestion == libscale._core.estimate.fit_suggestion(libscale.model("qwen3-32b"),
                                                                          libscale.hardware("h100"), None, cfg)
    with pytest.raises(libscale.DoesNotFitError) as e:
        libscale.project("qwen3-32b", "h100", gpus=[4, 8, 16], global_batch_tokens=1_048_576, require_fit=True)
    assert e.value.needed_gib == pytest.approx(first.needed_gib) and e.value.available_gib == 80
    assert "does not fit on 4 × h100" in str(e.value) and first.fit_suggestion in str(e.value)
    # every count fits: require_fit changes nothing
    ok = libscale.project("qwen3-32b", "h100", gpus=[16, 32], global_batch_tokens=1_048_576, require_fit=True)
    assert all(r.fits for r in ok.rows)
    with pytest.raises(TypeError, match="require_fit"):
        libscale.project("qwen3-32b", "b300", gpus=8, require_fit="yes")


def test_solve_deadline_picks_the_cheapest_meeting_the_deadline():
    counts = [4, 8, 16, 32, 64]
    p = libscale.project("qwen3-32b", "b300", gpus=counts, **CONFIG)
    deadline = p.rows[2].wall_time_h * 1.01           # 16 GPUs just meets it
    s = libscale.solve_deadline("qwen3-32b", "b300", deadline_h=deadline, gpus=counts, **CONFIG)
    meeting = [r for r in p.rows if r.wall_time_h <= deadline]
    best = min(meeting, key=lambda r: r.cost_usd)
    assert s.found and s.row.step.gpus == best.step.gpus
    assert [r.step.gpus for r in s.candidates] == counts
    none = libscale.solve_deadline("qwen3-32b", "b300", deadline_h=p.rows[-1].wall_time_h / 2, gpus=counts, **CONFIG)
    assert not none.found and none.row is None


def test_solve_budget_picks_the_fastest_within_the_caps():
    counts = [4, 8, 16, 32]
    p = libscale.project("qwen3-32b", "b300", gpus=counts, **CONFIG)
    cap = p.rows[1].gpu_hours * 1.001
    s = libscale.solve_budget("qwen3-32b", "b300", max_gpu_hours=cap, gpus=counts, **CONFIG)
    within = [r for r in p.rows if r.gpu_hours <= cap]
    assert s.found and s.row.step.gpus == min(within, key=lambda r: r.wall_time_h).step.gpus
    c = libscale.solve_budget("qwen3-32b", "b300", max_cost_usd=p.rows[-1].cost_usd * 2, gpus=counts, **CONFIG)
    assert c.row.step.gpus == 32
    with pytest.raises(ValueError, match="max_gpu_hours or max_cost_usd"):
        libscale.solve_budget("qwen3-32b", "b300", gpus=counts, **CONFIG)


def test_solvers_list_counts_that_do_not_fit_but_never_choose_them():
    kw = dict(gpus=[4, 8, 12, 16, 32], global_batch_tokens=1_048_576)
    s = libscale.solve_deadline("qwen3-32b", "h100", deadline_h=1e6, **kw)
    gpus = [r.step.gpus for r in s.candidates]
    assert gpus == [4, 8, 16, 32]                    # 12 does not divide the batch: not a valid count
    assert not s.candidates[0].fits                  # 4 does not fit: listed, flagged
    assert s.found and s.row.fits
    fitting = [r for r in s.candidates if r.fits]
    assert s.row.step.gpus == min(fitting, key=lambda r: r.cost_usd).step.gpus
    b = libscale.solve_budget("qwen3-32b", "h100", max_gpu_hours=1e9, **kw)
    assert b.row.fits and b.row.step.gpus == min(fitting, key=lambda r: r.wall_time_h).step.gpus
    with pytest.raises(libscale.DoesNotFitError, match="4 × h100"):
        libscale.solve_deadline("qwen3-32b", "h100", deadline_h=1e6, require_fit=True, **kw)
    with pytest.raises(libscale.DoesNotFitError, match="4 × h100"):
        libscale.solve_budget("qwen3-32b", "h100", max_gpu_hours=1e9, require_fit=True, **kw)
