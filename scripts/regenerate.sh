#!/usr/bin/env bash
# Rewrite every file derived from the core's declarations, after a change to them (a new
# option, a renamed field, a changed default): the stubs of libscale._core
# (scripts/make_stubs.py), docs/cli.md's flag tables (libscale.cli._docs), the parts of the
# JSON schemas common.json and measurements-2.json made from the option tables
# (scripts/make_schemas.py), the option groups' TypedDicts (scripts/make_option_types.py:
# bindings/libscale/_option_types.py), the results' typed fields (scripts/make_result_fields.py:
# bindings/libscale/_result_fields.py, from the stubs) and the golden outputs (LIBSCALE_UPDATE_GOLDEN=1 in
# tests/python/test_golden.py). Each of these files but the golden outputs says at its top
# that it is generated (and which parts, where only some are); .gitattributes marks them
# all linguist-generated. Tests fail while any of them is stale; review the diff, then
# commit it with the change.
#
# The module is the one on LIBSCALE_MODULE_PATH (e.g. build/dev/bindings:bindings), else
# the one scripts/setup.sh installed in .venv.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
export PYTHONPATH="${LIBSCALE_MODULE_PATH:-}"
"$py" scripts/make_stubs.py
"$py" scripts/make_option_types.py
"$py" scripts/make_result_fields.py
"$py" -m libscale.cli._docs docs/cli.md
"$py" scripts/make_schemas.py
LIBSCALE_UPDATE_GOLDEN=1 "$py" -m pytest -q -p no:cacheprovider tests/python/test_golden.py
git status --short -- bindings/libscale/_core bindings/libscale/_option_types.py bindings/libscale/_result_fields.py docs/cli.md bindings/libscale/schemas tests/python/golden
