#!/usr/bin/env bash
# Set up, then the main job: Qwen3-32B full fine-tune on B300, strong scaling over
# 4, 8 and 16 GPUs (8 per node), with wall time, GPU-hours, cost and energy for 1e9 tokens,
# calibrated to the field report's ~53k tokens/s on 16 B300 and with its P10-P90 interval.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
exec "$root/.venv/bin/libscale" project --model qwen3-32b --hardware b300 --gpus 4,8,16 \
  --gpus-per-node 8 --seq-len 8192 --micro-batch 1 --global-batch-tokens 1048576 \
  --activation-checkpointing full --tokens 1e9 \
  --calibration derived-b300-qwen3-32b --quantiles "$@"
